import { randomBytes, randomUUID } from 'node:crypto'
import type { ProductName } from './operations.ts'

export interface AccessTokenAnswer {
  access_token: string
  token_type: string
  expires_in: number
}

interface IssuedToken {
  readonly product: ProductName
  readonly expiresAtMs: number
}

/** The header of the tokens MoMo's sandbox issues: `{"typ":"JWT","alg":"R256"}`. */
const jwtHeader = Buffer.from('{"typ":"JWT","alg":"R256"}').toString('base64url')

/**
 * The access tokens issued so far, each valid for one product until it expires. A token is shaped
 * like MoMo's (a JWT whose payload names the API user, the expiry and a session), so a client that
 * inspects it sees what it would see from MTN; the simulator itself only looks it up.
 */
export class TokenStore {
  private readonly issued = new Map<string, IssuedToken>()

  constructor(private readonly lifetimeSeconds: number) {}

  issue(product: ProductName, apiUser: string): AccessTokenAnswer {
    const expiresAtMs = Date.now() + this.lifetimeSeconds * 1000
    const payload = {
      clientId: apiUser,
      expires: new Date(expiresAtMs).toISOString().replace('Z', ''),
      sessionId: randomUUID(),
    }
    const token = [
      jwtHeader,
      Buffer.from(JSON.stringify(payload)).toString('base64url'),
      randomBytes(64).toString('base64url'),
    ].join('.')
    this.issued.set(token, { product, expiresAtMs })
    return { access_token: token, token_type: 'access_token', expires_in: this.lifetimeSeconds }
  }

  /** True when the token was issued for this product and has not expired. */
  accepts(token: string, product: ProductName): boolean {
    const issued = this.issued.get(token)
    return issued !== undefined && issued.product === product && Date.now() < issued.expiresAtMs
  }

  expireAll(): void {
    this.issued.clear()
  }
}
