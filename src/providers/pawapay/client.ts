import { callOperator, type OperatorAnswer } from '../operator-http.ts'

export type PawapayAnswer = OperatorAnswer

/**
 * pawaPay's HTTP: the API token as a bearer token on every call. pawaPay's tokens do not expire
 * (the Dashboard issues and revokes them, D-TOKENS), so there is nothing to renew: a 401 or 403
 * means the token was revoked or is wrong, and is answered as it came. Every call is bounded by
 * the operators' timeout; a call that gets no answer throws.
 */
export function createPawapayClient(baseUrl: string, apiToken: string) {
  return (method: 'GET' | 'POST', path: string, body?: unknown): Promise<PawapayAnswer> =>
    callOperator(`${baseUrl}${path}`, method, { authorization: `Bearer ${apiToken}` }, body)
}

export type PawapayCall = ReturnType<typeof createPawapayClient>
