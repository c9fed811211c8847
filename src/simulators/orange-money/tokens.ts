import { randomBytes, randomUUID } from 'node:crypto'

export interface AccessTokenAnswer {
  token_type: 'Bearer'
  access_token: string
  expires_in: number
}

export type TokenCheck = 'valid' | 'unknown' | 'expired'

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')

/**
 * The access tokens issued so far and when each expires. A token is shaped like those of Orange's
 * OAuth proxy v3 (an ES384 JWT naming the client, the issuer and the expiry), so a client that
 * inspects it sees what it would see from Orange; the simulator itself only looks it up. Expired
 * tokens stay known, because Orange tells an expired token (code 42) from an unknown one (41).
 */
export class TokenStore {
  private readonly expiries = new Map<string, number>()
  private readonly keyId = randomBytes(32).toString('base64url')

  constructor(private readonly lifetimeSeconds: number) {}

  issue(clientId: string): AccessTokenAnswer {
    const issuedAt = Math.floor(Date.now() / 1000)
    const header = { ver: '1.0', typ: 'JWT', alg: 'ES384', kid: this.keyId }
    const payload = {
      app_name: 'sika-simulator',
      sub: clientId,
      iss: 'https://api.orange.com/oauth/v3',
      exp: issuedAt + this.lifetimeSeconds,
      app_id: clientId.slice(0, 16),
      iat: issuedAt,
      client_id: clientId,
      jti: randomUUID(),
    }
    const token = [base64url(header), base64url(payload), randomBytes(96).toString('base64url')].join('.')
    this.expiries.set(token, Date.now() + this.lifetimeSeconds * 1000)
    return { token_type: 'Bearer', access_token: token, expires_in: this.lifetimeSeconds }
  }

  check(token: string): TokenCheck {
    const expiresAtMs = this.expiries.get(token)
    if (expiresAtMs === undefined) return 'unknown'
    return Date.now() < expiresAtMs ? 'valid' : 'expired'
  }

  /** Every token issued so far expires now; new ones are issued as usual. */
  expireAll(): void {
    const now = Date.now()
    for (const token of this.expiries.keys()) this.expiries.set(token, now)
  }
}
