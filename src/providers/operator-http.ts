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

/** Runs one call and publishes it on the diagnostics channel once it ends, answered or not. */
async function published<T extends { status: number }>(
  url: string,
  method: 'GET' | 'POST',
  call: () => Promise<T>,
): Promise<T> {
  const startedAt = performance.now()
  const publish = (status: number | undefined, error: unknown) => {
    if (!operatorCalls.hasSubscribers) return
    const durationMs = performance.now() - startedAt
    operatorCalls.publish({ url, method, durationMs, status, error } satisfies OperatorCallRecord)
  }
  try {
    const answer = await call()
    publish(answer.status, undefined)
    return answer
  } catch (error) {
    publish(undefined, error)
    throw error
  }
}

/**
 * One HTTP call to an operator, bounded by the timeout; a call that gets no answer throws.
 */
export function callOperator(
  url: string,
  method: 'GET' | 'POST',
  headers: Record<string, string>,
  body?: unknown,
): Promise<OperatorAnswer> {
  return published(url, method, () => send(url, method, headers, body))
}

/** An operator's answer kept byte for byte: a statement file, a page kept as evidence. */
export interface OperatorDocument {
  status: number
  /** The answer's content type, or '' when it named none. */
  contentType: string
  bytes: Buffer
}

export interface DocumentLimits {
  /** The whole download's bound; each wait for the next bytes is bounded by the operators' timeout too. */
  totalTimeoutMs?: number
  /** A larger answer is cut short and throws. */
  maxBytes?: number
}

/** The largest document read by default (a statement of a busy month, compressed, is far below it). */
export const largestOperatorDocumentBytes = 256 * 1024 * 1024

/**
 * A GET of a document (a statement file, a page of transactions) kept byte for byte. Waiting for
 * the answer and for each of its chunks is bounded by the operators' 10 s; the whole download by
 * `totalTimeoutMs` (10 s unless a large file needs more). A call that gets no answer, or one
 * larger than `maxBytes`, throws.
 */
export function readFromOperator(
  url: string,
  headers: Record<string, string>,
  limits: DocumentLimits = {},
): Promise<OperatorDocument> {
  return published(url, 'GET', () => download(url, headers, limits))
}

async function download(
  url: string,
  headers: Record<string, string>,
  { totalTimeoutMs = operatorCallTimeoutMs, maxBytes = largestOperatorDocumentBytes }: DocumentLimits,
): Promise<OperatorDocument> {
  const response = await request(url, {
    method: 'GET',
    headers,
    headersTimeout: operatorCallTimeoutMs,
    bodyTimeout: operatorCallTimeoutMs,
    signal: AbortSignal.timeout(totalTimeoutMs),
  })
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of response.body) {
    size += (chunk as Buffer).length
    if (size > maxBytes) {
      response.body.destroy()
      throw new Error(`the document is larger than ${maxBytes} bytes`)
    }
    chunks.push(chunk as Buffer)
  }
  const contentType = response.headers['content-type']
  return {
    status: response.statusCode,
    contentType: Array.isArray(contentType) ? (contentType[0] ?? '') : (contentType ?? ''),
    bytes: Buffer.concat(chunks, size),
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
