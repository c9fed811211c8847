import {
  createCipheriv,
  createDecipheriv,
  createHash,
  hkdfSync,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto'
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import type { Config } from '../config.ts'

/**
 * Secret keys are 238 bits of randomness, so a fast hash is enough: there is nothing to
 * brute-force, and a slow KDF would cost every authenticated request milliseconds.
 */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex')
}

/** Constant-time, so the time taken says nothing about how much of the secret matched. */
export function secretMatches(secret: string, storedHash: string): boolean {
  const given = Buffer.from(hashSecret(secret), 'hex')
  const stored = Buffer.from(storedHash, 'hex')
  return given.length === stored.length && timingSafeEqual(given, stored)
}

/**
 * The secret last proven to match each credential as read (the credential cache keeps one object
 * per api-key for at most 500 ms), so the requests of that window compare bytes in constant time
 * instead of hashing the secret again on every request. The bytes live no longer than that
 * object, and a different secret is always checked against the stored hash.
 */
const provenSecrets = new WeakMap<{ readonly secretHash: string }, Buffer>()

export function secretMatchesCredential(
  secret: string,
  credential: { readonly secretHash: string },
): boolean {
  const given = Buffer.from(secret)
  const proven = provenSecrets.get(credential)
  if (proven && proven.length === given.length && timingSafeEqual(proven, given)) return true
  if (!secretMatches(secret, credential.secretHash)) return false
  provenSecrets.set(credential, given)
  return true
}

/**
 * Webhook secrets must be readable to sign, so they cannot be hashed. They are stored
 * encrypted with AES-256-GCM under a key that never enters the database: a copy of the
 * database alone does not let anyone forge our callbacks.
 */
export interface SecretBox {
  seal(plaintext: string): string
  open(sealed: string): string
  /** A key for one purpose (checkout forms, sandbox notifications), derived so none is reused. */
  derive(purpose: string): Buffer
}

export function createSecretBox(source: Config['secretsKey']): SecretBox {
  const key = source.kind === 'value' ? source.value : loadOrCreateKeyFile(source.path)
  return {
    seal(plaintext) {
      const iv = randomBytes(12)
      const cipher = createCipheriv('aes-256-gcm', key, iv)
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()])
      return [iv, cipher.getAuthTag(), ciphertext].map((part) => part.toString('base64')).join('.')
    },
    open(sealed) {
      const [iv, tag, ciphertext] = sealed.split('.').map((part) => Buffer.from(part, 'base64'))
      if (!iv || !tag || !ciphertext) throw new Error('sealed secret is malformed')
      const decipher = createDecipheriv('aes-256-gcm', key, iv)
      decipher.setAuthTag(tag)
      return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8')
    },
    derive(purpose) {
      return Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), `sika:${purpose}`, 32))
    },
  }
}

/** Where the key comes from, as a person reads it in a message: a file's path, or the variable. */
export function keySourceName(source: Config['secretsKey']): string {
  return source.kind === 'file' ? `file ${source.path}` : 'SECRETS_KEY'
}

/** Whether opening a box over this source would make a new key (its file does not exist yet). */
export function wouldCreateKey(source: Config['secretsKey']): boolean {
  return source.kind === 'file' && !existsSync(source.path)
}

/** Whether the box's key opens this sealed secret (AES-GCM: another key fails authentication). */
export function opens(box: SecretBox, sealed: string): boolean {
  try {
    box.open(sealed)
    return true
  } catch {
    return false
  }
}

function loadOrCreateKeyFile(path: string): Buffer {
  if (!existsSync(path)) {
    mkdirSync(dirname(path), { recursive: true })
    try {
      writeFileSync(path, randomBytes(32).toString('hex'), { mode: 0o600, flag: 'wx' })
    } catch (error) {
      // Another process created it first: use theirs.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
  }
  chmodSync(path, 0o600)
  const key = Buffer.from(readFileSync(path, 'utf8').trim(), 'hex')
  if (key.length !== 32) throw new Error(`${path} does not hold a 32-byte hex key`)
  return key
}
