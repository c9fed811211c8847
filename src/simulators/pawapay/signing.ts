import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
} from 'node:crypto'
import type { SigningKeyOptions } from './config.ts'

/**
 * RFC 9421 signatures of callbacks, as pawaPay signs them when "signed callbacks" is enabled:
 * `Content-Digest: sha-512=:…:` (RFC 9530), a `Signature-Date` header of its own, and a signature
 * labelled `sig-pp` over ("@method" "@authority" "@path" "signature-date" "content-digest"
 * "content-type") with alg, keyid, created and expires (SOURCES.md, "Signatures").
 */
export interface CallbackSigner {
  readonly keyId: string
  /** The public key, PEM, as /v2/public-key/http serves it. */
  readonly publicKeyPem: string
  /** The headers to add to a callback with this body. */
  sign(url: string, body: string, contentType: string): Promise<Record<string, string>>
  /** Rejects, saying why, when the signing package is not installed. */
  ready(): Promise<void>
}

/** What this module uses of the `http-message-signatures` package (RFC 9421, httpbis). */
interface MessageSignatures {
  createSigner(key: KeyObject, alg: string, id: string): unknown
  httpbis: {
    signMessage(
      config: Record<string, unknown>,
      request: { method: string; url: string; headers: Record<string, string> },
    ): Promise<{ headers: Record<string, string> }>
  }
}

/**
 * The package is loaded only when signing is switched on, by a name held in a variable: the
 * simulator, unsigned by default, then runs and type-checks without it installed.
 */
const signaturesPackage = 'http-message-signatures'

async function loadSignatures(): Promise<MessageSignatures> {
  try {
    return (await import(signaturesPackage)) as MessageSignatures
  } catch (cause) {
    throw new Error(`signCallbacks needs the npm package ${signaturesPackage}`, { cause })
  }
}

const coveredComponents = [
  '@method',
  '@authority',
  '@path',
  'signature-date',
  'content-digest',
  'content-type',
]
/** pawaPay's examples sign with `expires` a minute after `created`. */
const signatureLifetimeMs = 60_000

export function contentDigest(body: string): string {
  return `sha-512=:${createHash('sha512').update(body).digest('base64')}:`
}

export function createCallbackSigner(key: SigningKeyOptions | undefined): CallbackSigner {
  const privateKey = key
    ? createPrivateKey(key.privateKeyPem)
    : generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey
  const keyId = key?.id ?? 'HTTP_EC_P256_KEY:1'
  return {
    keyId,
    publicKeyPem: createPublicKey(privateKey).export({ type: 'spki', format: 'pem' }).toString(),
    ready: async () => {
      await loadSignatures()
    },
    sign: async (url, body, contentType) => {
      const { createSigner, httpbis } = await loadSignatures()
      const created = new Date()
      const headers = {
        'content-type': contentType,
        'content-digest': contentDigest(body),
        'signature-date': created.toISOString(),
      }
      const signed = await httpbis.signMessage(
        {
          key: createSigner(privateKey, 'ecdsa-p256-sha256', keyId),
          name: 'sig-pp',
          fields: coveredComponents,
          params: ['alg', 'keyid', 'created', 'expires'],
          paramValues: { created, expires: new Date(created.getTime() + signatureLifetimeMs) },
        },
        { method: 'POST', url, headers },
      )
      return signed.headers
    },
  }
}
