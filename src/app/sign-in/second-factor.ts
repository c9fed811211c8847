import { createHash, randomInt } from 'node:crypto'
import { generateSecret, generateURI, verify } from 'otplib'

/** TOTP (RFC 6238): 6 digits, 30 s steps, one step either side of the server's clock. */
const stepSeconds = 30

export function newTotpSecret(): string {
  return generateSecret()
}

/** What an authenticator app scans: the issuer is Sika, the label the member's email. */
export function totpUri(secret: string, email: string): string {
  return generateURI({ issuer: 'Sika', label: email, secret })
}

/** The time step the code belongs to, when it is right within a step either side of now; undefined otherwise. */
export async function totpStepOf(secret: string, code: string, nowMs: number): Promise<number | undefined> {
  if (!/^[0-9]{6}$/.test(code)) return undefined
  const epoch = Math.floor(nowMs / 1000)
  const result = await verify({
    secret,
    token: code,
    epoch,
    epochTolerance: stepSeconds,
  }).catch(() => undefined)
  return result?.valid ? Math.floor(epoch / stepSeconds) + result.delta : undefined
}

/** Ten one-use recovery codes, `xxxx-xxxx` of digits and lowercase letters without look-alikes. */
export function newRecoveryCodes(): string[] {
  const alphabet = '23456789abcdefghjkmnpqrstuvwxyz'
  const part = () => Array.from({ length: 4 }, () => alphabet[randomInt(alphabet.length)]).join('')
  return Array.from({ length: 10 }, () => `${part()}-${part()}`)
}

export function looksLikeRecoveryCode(text: string): boolean {
  return /^[0-9a-z]{4}-?[0-9a-z]{4}$/i.test(text.trim())
}

/** Codes are stored hashed; a member may type one in capitals or without its dash. */
export function recoveryCodeHash(code: string): string {
  const normal = code.trim().toLowerCase().replace('-', '')
  return createHash('sha256').update(`sika-recovery:${normal}`).digest('hex')
}
