import { channel } from 'node:diagnostics_channel'
import { request } from 'undici'

/** One operator call never waits longer (CONTRACT.md, Operators). */
export const operatorCallTimeoutMs = 10_000

export interface OperatorAnswer {
  status: number
  /** The parsed JSON body, or undefined when there was none or it was not JSON. */
  body: unknown
}

/**
 * Every operator call, answered or not, is published on this node:diagnostics_channel once it
 * ends, for /metrics. Publishing costs nothing while nobody subscribes.
 */
export const operatorCallsChannel = 'sika:operator-call'

export interface OperatorCallRecord {
  url: string
  method: 'GET' | 'POST'
  durationMs: number
  /** The HTTP status of the answer, or undefined when none came (timeout, refused, reset). */
  status: number | undefined
  /** Why no answer came, when none did. */
  error: unknown
}

const operatorCalls = channel(operatorCallsChannel)

/**
 * One HTTP call to an operator, bounded by the timeout; a call that gets no answer throws.
 */
export async function callOperator(
  url: string,
  method: 'GET' | 'POST',
  headers: Record<string, string>,
  body?: unknown,
): Promise<OperatorAnswer> {
  const startedAt = performance.now()
  const publish = (status: number | undefined, error: unknown) => {
    if (!operatorCalls.hasSubscribers) return
    const durationMs = performance.now() - startedAt
    operatorCalls.publish({ url, method, durationMs, status, error } satisfies OperatorCallRecord)
  }
  try {
    const answer = await send(url, method, headers, body)
    publish(answer.status, undefined)
    return answer
  } catch (error) {
    publish(undefined, error)
    throw error
  }
}

async function send(
  url: string,
  method: 'GET' | 'POST',
  headers: Record<string, string>,
  body: unknown,
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
