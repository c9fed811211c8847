import { request } from 'undici'

/** One operator call never waits longer (CONTRACT.md, Operators). */
export const operatorCallTimeoutMs = 10_000

export interface OperatorAnswer {
  status: number
  /** The parsed JSON body, or undefined when there was none or it was not JSON. */
  body: unknown
}

/** One HTTP call to an operator, bounded by the timeout; a call that gets no answer throws. */
export async function callOperator(
  url: string,
  method: 'GET' | 'POST',
  headers: Record<string, string>,
  body?: unknown,
): Promise<OperatorAnswer> {
  const response = await request(url, {
    method,
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    headersTimeout: operatorCallTimeoutMs,
    bodyTimeout: operatorCallTimeoutMs,
    signal: AbortSignal.timeout(operatorCallTimeoutMs),
  })
  const text = await response.body.text()
  let parsed: unknown
  try {
    parsed = text ? JSON.parse(text) : undefined
  } catch {
    parsed = undefined
  }
  return { status: response.statusCode, body: parsed }
}
