import { callOperator, type OperatorAnswer } from '../operator-http.ts'
import type { Product } from './wire.ts'

/** A token is renewed this long before MTN says it expires. */
const refreshMarginMs = 60_000

export interface ProductCredentials {
  apiUser: string
  apiKey: string
  subscriptionKey: string
}

export interface MtnConnection {
  baseUrl: string
  targetEnvironment: string
  collection: ProductCredentials
  disbursement: ProductCredentials
}

export type MtnAnswer = OperatorAnswer

function call(
  baseUrl: string,
  method: 'GET' | 'POST',
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<MtnAnswer> {
  return callOperator(`${baseUrl}${path}`, method, headers, body)
}

/**
 * MTN's HTTP: an access token per product, cached until shortly before it expires and renewed once
 * when a call answers 401; every call bounded by the timeout. A call that gets no answer throws.
 */
export function createMtnClient(connection: MtnConnection) {
  const tokens = new Map<Product, { accessToken: string; expiresAtMs: number }>()

  async function token(product: Product): Promise<string> {
    const cached = tokens.get(product)
    if (cached && cached.expiresAtMs - refreshMarginMs > Date.now()) return cached.accessToken
    const { apiUser, apiKey, subscriptionKey } = connection[product]
    const answer = await call(connection.baseUrl, 'POST', `/${product}/token/`, {
      authorization: `Basic ${Buffer.from(`${apiUser}:${apiKey}`).toString('base64')}`,
      'ocp-apim-subscription-key': subscriptionKey,
    })
    const body = answer.body as { access_token?: unknown; expires_in?: unknown } | undefined
    if (answer.status !== 200 || typeof body?.access_token !== 'string')
      throw new Error(`MTN MoMo ${product} token: HTTP ${answer.status}`)
    const lifetimeS = typeof body.expires_in === 'number' ? body.expires_in : 3600
    tokens.set(product, { accessToken: body.access_token, expiresAtMs: Date.now() + lifetimeS * 1000 })
    return body.access_token
  }

  /** An API call with the product's bearer token; a 401 renews the token and tries once more. */
  async function api(
    product: Product,
    method: 'GET' | 'POST',
    path: string,
    extraHeaders: Record<string, string> = {},
    body?: unknown,
  ): Promise<MtnAnswer> {
    const send = async () =>
      call(
        connection.baseUrl,
        method,
        path,
        {
          authorization: `Bearer ${await token(product)}`,
          'x-target-environment': connection.targetEnvironment,
          'ocp-apim-subscription-key': connection[product].subscriptionKey,
          ...extraHeaders,
        },
        body,
      )
    const first = await send()
    if (first.status !== 401) return first
    tokens.delete(product)
    return send()
  }

  return { api }
}

export type MtnClient = ReturnType<typeof createMtnClient>
