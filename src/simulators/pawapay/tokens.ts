import { randomBytes, randomUUID } from 'node:crypto'

/**
 * A JWT-shaped string like the API tokens the pawaPay Dashboard generates (sandbox tokens start
 * `eyJ`); the simulator only compares it, never decodes it.
 */
export function generateApiToken(): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')
  const issuedAt = Math.floor(Date.now() / 1000)
  const payload = { tt: 'AAT', sub: String(issuedAt % 100_000), mav: '1', iat: issuedAt, jti: randomUUID() }
  return [part({ kid: '1', alg: 'ES256' }), part(payload), randomBytes(64).toString('base64url')].join('.')
}

/**
 * The merchant's API token. pawaPay tokens do not expire: the Dashboard revokes them ("Revoking an
 * API token will immediately stop all payments that use the given token"), so expiring the tokens
 * here revokes the current one and generates the next, as a merchant would in the Dashboard.
 */
export class ApiTokens {
  private active: string
  private readonly revoked = new Set<string>()

  constructor(initial: string) {
    this.active = initial
  }

  get current(): string {
    return this.active
  }

  accepts(token: string): boolean {
    return token === this.active && !this.revoked.has(token)
  }

  revokeAll(): string {
    this.revoked.add(this.active)
    this.active = generateApiToken()
    return this.active
  }
}
