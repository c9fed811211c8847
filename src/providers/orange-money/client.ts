import { request } from 'undici'
import { callOperator, type OperatorAnswer, operatorCallTimeoutMs } from '../operator-http.ts'

/** A token is renewed this long before Orange says it expires. */
const refreshMarginMs = 60_000

export interface OrangeConnection {
  baseUrl: string
  clientId: string
  clientSecret: string
  merchantKey: string
}

/**
 * Orange's HTTP: a client-credentials token (POST /oauth/v3/token, Basic clientId:clientSecret),
 * cached until shortly before it expires and renewed once when a call answers 401.
 */
export function createOrangeClient(connection: OrangeConnection) {
  let cached: { accessToken: string; expiresAtMs: number } | undefined

  async function token(): Promise<string> {
    if (cached && cached.expiresAtMs - refreshMarginMs > Date.now()) return cached.accessToken
    const basic = Buffer.from(`${connection.clientId}:${connection.clientSecret}`).toString('base64')
    const response = await request(`${connection.baseUrl}/oauth/v3/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
      signal: AbortSignal.timeout(operatorCallTimeoutMs),
    })
    const body = (await response.body.json().catch(() => undefined)) as
      | { access_token?: unknown; expires_in?: unknown }
      | undefined
    if (response.statusCode !== 200 || typeof body?.access_token !== 'string')
      throw new Error(`Orange token: HTTP ${response.statusCode}`)
    const lifetimeS = Number(body.expires_in) > 0 ? Number(body.expires_in) : 3600
    cached = { accessToken: body.access_token, expiresAtMs: Date.now() + lifetimeS * 1000 }
    return body.access_token
  }

  /** A WebPay call with the bearer token; a 401 renews the token and tries once more. */
  return async function call(path: string, body: unknown): Promise<OperatorAnswer> {
    const send = async () =>
      callOperator(`${connection.baseUrl}${path}`, 'POST', { authorization: `Bearer ${await token()}` }, body)
    const first = await send()
    if (first.status !== 401) return first
    cached = undefined
    return send()
  }
}
