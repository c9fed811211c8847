import { hash, verify } from '@node-rs/argon2'

/** Argon2id (algorithm 2) with the library's defaults: 19 MiB, 2 passes, one lane (OWASP's first row). */
const argon2id = { algorithm: 2 } as const

export const minimumPasswordLength = 12

export function hashPassword(password: string): Promise<string> {
  return hash(password, argon2id)
}

/**
 * True when the password matches. An unknown email is checked against a hash made once, so the
 * time taken never tells whether the email exists.
 */
export async function passwordMatches(storedHash: string | null, password: string): Promise<boolean> {
  const against = storedHash ?? (await unknownEmailHash())
  const matches = await verify(against, password).catch(() => false)
  return matches && storedHash !== null
}

let decoyHash: Promise<string> | undefined
function unknownEmailHash(): Promise<string> {
  decoyHash ??= hashPassword('a password no member has, checked for unknown emails')
  return decoyHash
}
