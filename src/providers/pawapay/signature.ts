import { createHash, createPublicKey, type KeyObject, timingSafeEqual } from 'node:crypto'
import { createVerifier, httpbis } from 'http-message-signatures'
import type { NotificationInput } from '../provider.ts'

/**
 * pawaPay's signed callbacks (D-SIGN, PP-KIT; RFC 9421 with RFC 9530's Content-Digest), checked
 * when the connection names pawaPay's public key (`callbackPublicKey`, the PEM of
 * GET /v2/public-key/http). The signature must cover the Content-Digest, the digest must be the
 * body's, and the signature must verify over Sika's own notification URL (its @authority and
 * @path), never over a Host header the sender chose.
 */

/** Clock skew allowed around `created` and `expires` (pawaPay's signatures live a minute). */
const toleranceSeconds = 30
/** A signature older than this is refused, whatever its `expires` says. */
const maxAgeSeconds = 5 * 60

/** The RFC 9421 algorithm a public key verifies; an RSA key takes the one the signature names. */
function algorithmOf(key: KeyObject, declared: unknown): string | undefined {
  const type = key.asymmetricKeyType
  if (type === 'ed25519') return 'ed25519'
  if (type === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve
    if (curve === 'prime256v1') return 'ecdsa-p256-sha256'
    if (curve === 'secp384r1') return 'ecdsa-p384-sha384'
    return undefined
  }
  if (type === 'rsa' || type === 'rsa-pss')
    return declared === 'rsa-pss-sha512' || declared === 'rsa-v1_5-sha256' ? declared : undefined
  return undefined
}

/** `sha-512=:<base64>:` or `sha-256=:<base64>:` (RFC 9530): one of them must be the body's digest. */
function digestMatches(header: string | undefined, rawBody: string): boolean {
  if (!header) return false
  const digests = header
    .split(',')
    .map((entry) => /^\s*(sha-512|sha-256)=:([A-Za-z0-9+/=]+):\s*$/.exec(entry))
  const checked = digests.filter((match) => match !== null)
  if (checked.length === 0) return false
  return checked.every(([, algorithm, value]) => {
    const expected = createHash(algorithm === 'sha-512' ? 'sha512' : 'sha256')
      .update(rawBody)
      .digest()
    const given = Buffer.from(value!, 'base64')
    return given.length === expected.length && timingSafeEqual(given, expected)
  })
}

const single = (value: string | string[] | undefined) => (Array.isArray(value) ? value.join(', ') : value)

/** Throws when the key is no public key (the operators file is checked with it at start). */
export function readCallbackPublicKey(pem: string): KeyObject {
  return createPublicKey(pem)
}

/** Whether a callback is signed by pawaPay's key, for this URL and exactly this body. */
export function createCallbackVerifier(publicKeyPem: string, notificationUrl: string) {
  const key = readCallbackPublicKey(publicKeyPem)
  return async ({ headers, rawBody }: NotificationInput): Promise<boolean> => {
    if (!digestMatches(single(headers['content-digest']), rawBody)) return false
    const present = Object.fromEntries(
      Object.entries(headers).filter((entry): entry is [string, string | string[]] => entry[1] !== undefined),
    )
    try {
      const verified = await httpbis.verifyMessage(
        {
          keyLookup: async (parameters) => {
            const alg = algorithmOf(key, parameters.alg)
            return alg
              ? { id: String(parameters.keyid ?? ''), algs: [alg], verify: createVerifier(key, alg) }
              : null
          },
          requiredFields: ['content-digest'],
          requiredParams: ['created'],
          tolerance: toleranceSeconds,
          maxAge: maxAgeSeconds,
        },
        { method: 'POST', url: notificationUrl, headers: present },
      )
      return verified === true
    } catch {
      return false
    }
  }
}
