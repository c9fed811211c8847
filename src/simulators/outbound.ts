import { type ClientRequest, Agent as HttpAgent, request as httpRequest } from 'node:http'
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https'
import type { SentCallback } from './simulator.ts'

/**
 * The requests a simulator makes to receivers (callbacks, notifications, webhooks): each one is
 * bounded by a timeout and recorded with the receiver's status. What to send, how to sign it and
 * when to retry is each operator's own (its sender extends this). Its agents keep no socket alive
 * and close() destroys what is in flight, so a closed simulator leaves nothing open.
 */
export class OutboundRequests {
  readonly sent: SentCallback[] = []
  private readonly inFlight = new Set<ClientRequest>()
  private readonly httpAgent = new HttpAgent({ keepAlive: false })
  private readonly httpsAgent = new HttpsAgent({ keepAlive: false })
  protected closed = false

  constructor(private readonly timeoutMs = 10_000) {}

  /**
   * One request: resolves to the receiver's status, or undefined when it could not be reached or
   * did not answer in time. A URL that does not parse is recorded as unreachable.
   */
  protected post(url: string, method: string, bodyHeaders: Record<string, string>, body: string) {
    const headers = { ...bodyHeaders, 'content-length': String(Buffer.byteLength(body)) }
    const record: SentCallback = { url, method, headers, body, status: undefined, sentAtMs: Date.now() }
    let target: URL
    try {
      target = new URL(url)
    } catch {
      this.sent.push(record)
      return Promise.resolve(undefined)
    }
    const secure = target.protocol === 'https:'
    return new Promise<number | undefined>((resolve) => {
      const outgoing = (secure ? httpsRequest : httpRequest)(target, {
        method,
        headers,
        agent: secure ? this.httpsAgent : this.httpAgent,
        timeout: this.timeoutMs,
      })
      this.inFlight.add(outgoing)
      // A request cut short by close() is not recorded, and its sender sees it as unanswered.
      const finish = (status: number | undefined) => {
        if (this.inFlight.delete(outgoing)) this.sent.push({ ...record, status })
        resolve(status)
      }
      outgoing.on('response', (answer) => {
        answer.resume()
        answer.on('end', () => finish(answer.statusCode))
        answer.on('error', () => finish(answer.statusCode))
      })
      outgoing.on('timeout', () => outgoing.destroy())
      outgoing.on('error', () => finish(undefined))
      outgoing.end(body)
    })
  }

  close(): void {
    this.closed = true
    for (const outgoing of this.inFlight) outgoing.destroy()
    this.inFlight.clear()
    this.httpAgent.destroy()
    this.httpsAgent.destroy()
  }
}
