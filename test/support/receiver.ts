import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

/** One request the receiver got, exactly as it arrived. */
export interface ReceivedRequest {
  method: string
  /** Path and query, e.g. /callbacks/a */
  path: string
  headers: IncomingHttpHeaders
  /** The raw body, byte for byte as text: signatures are checked over it. */
  body: string
  /** Wall-clock milliseconds when the body had fully arrived. */
  receivedAtMs: number
}

/** How the receiver answers one request: a status code, or a status with headers and a delay. */
export type Answer =
  | number
  | { status: number; headers?: Record<string, string>; body?: string; delayMs?: number }

export interface Receiver {
  /** http://127.0.0.1:<port> */
  readonly origin: string
  /** Every request, in order of arrival. */
  readonly requests: ReceivedRequest[]
  /** The absolute URL of a path on this receiver. */
  url(path: string): string
  /**
   * Programs a path: the queued answers are used one per request, then `then` for every later
   * one. Paths without a script answer 200.
   */
  script(path: string, queued: Answer[], then?: Answer): void
  /** Requests to one path (query ignored), in order of arrival. */
  requestsTo(path: string): ReceivedRequest[]
  /** The parsed JSON bodies of the requests to a path. */
  bodiesTo(path: string): any[]
  /** The most requests to a path held at once: received whole and not yet answered, as the receiver saw them. */
  mostInFlightTo(path: string): number
  /** Polls until the predicate holds; fails with `what` after `timeoutMs`. */
  waitFor<T>(predicate: () => T | undefined | false, timeoutMs: number, what: string): Promise<T>
  close(): Promise<void>
}

/** A real HTTP receiver on 127.0.0.1 that records everything and answers from a script. */
export async function startReceiver(): Promise<Receiver> {
  const requests: ReceivedRequest[] = []
  const scripts = new Map<string, { queued: Answer[]; then: Answer }>()
  const inFlight = new Map<string, { now: number; most: number }>()
  const pathOf = (path: string) => path.split('?')[0] ?? path

  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const path = request.url ?? '/'
      requests.push({
        method: request.method ?? 'GET',
        path,
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        receivedAtMs: Date.now(),
      })
      const held = inFlight.get(pathOf(path)) ?? { now: 0, most: 0 }
      inFlight.set(pathOf(path), held)
      held.now++
      held.most = Math.max(held.most, held.now)
      response.once('close', () => held.now--)
      const script = scripts.get(pathOf(path))
      const answer: Answer = script ? (script.queued.shift() ?? script.then) : 200
      const {
        status,
        headers = {},
        body = '',
        delayMs = 0,
      } = typeof answer === 'number' ? { status: answer } : answer
      const send = () => {
        if (response.destroyed) return
        response.writeHead(status, headers)
        response.end(body)
      }
      if (delayMs > 0) setTimeout(send, delayMs).unref()
      else send()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  const origin = `http://127.0.0.1:${port}`

  const requestsTo = (path: string) => requests.filter((request) => pathOf(request.path) === path)
  return {
    origin,
    requests,
    url: (path) => `${origin}${path}`,
    script(path, queued, then = 200) {
      scripts.set(path, { queued: [...queued], then })
    },
    requestsTo,
    bodiesTo: (path) => requestsTo(path).map((request) => JSON.parse(request.body)),
    mostInFlightTo: (path) => inFlight.get(path)?.most ?? 0,
    async waitFor(predicate, timeoutMs, what) {
      const deadline = Date.now() + timeoutMs
      for (;;) {
        const value = predicate()
        if (value !== undefined && value !== false) return value as never
        if (Date.now() > deadline) {
          const seen = requests.map((request) => `${request.method} ${request.path}`).join(', ') || 'none'
          throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; requests seen: ${seen}`)
        }
        await new Promise((resolve) => setTimeout(resolve, 10))
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
