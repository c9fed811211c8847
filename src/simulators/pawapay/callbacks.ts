import { type ClientRequest, Agent as HttpAgent, request as httpRequest } from 'node:http'
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https'
import type { SentCallback } from '../simulator.ts'
import type { CallbackSigner } from './signing.ts'
import type { Timers } from './state.ts'

/** How long the simulator waits for a receiver before it records the callback as unanswered. */
const callbackTimeoutMs = 10_000
/** The content type of pawaPay's callbacks, as its signed-callback examples show it. */
const contentType = 'application/json; charset=UTF-8'

/**
 * Sends pawaPay's callbacks: a POST of the JSON body, retried while the receiver does not answer
 * 2xx (pawaPay: "we will retry delivering the callback for 15 minutes"), signed when a signer is
 * given. Every attempt is recorded. Its own agents keep no socket alive, so close() ends everything.
 */
export class CallbackSender {
  readonly sent: SentCallback[] = []
  private readonly inFlight = new Set<ClientRequest>()
  private readonly httpAgent = new HttpAgent({ keepAlive: false })
  private readonly httpsAgent = new HttpsAgent({ keepAlive: false })
  private closed = false

  constructor(
    private readonly timers: Timers,
    private readonly retryDelaysMs: readonly number[],
    private readonly signer: CallbackSigner | undefined,
  ) {}

  /** Sends one callback; `attempt` counts the retries already made. */
  send(url: string, body: string, attempt = 0): void {
    this.deliver(url, body, attempt).catch(() => undefined)
  }

  private async deliver(url: string, body: string, attempt: number): Promise<void> {
    const headers: Record<string, string> = { 'content-type': contentType }
    if (this.signer) Object.assign(headers, await this.signer.sign(url, body, contentType))
    if (this.closed) return
    headers['content-length'] = String(Buffer.byteLength(body))
    const status = await this.post(url, body, headers)
    const delay = this.retryDelaysMs[attempt]
    const delivered = status !== undefined && status >= 200 && status < 300
    if (!delivered && delay !== undefined && !this.closed) {
      this.timers.after(delay, () => this.send(url, body, attempt + 1))
    }
  }

  /** One attempt: resolves to the receiver's status, or undefined when it could not be reached. */
  private post(url: string, body: string, headers: Record<string, string>): Promise<number | undefined> {
    const record: SentCallback = {
      url,
      method: 'POST',
      headers,
      body,
      status: undefined,
      sentAtMs: Date.now(),
    }
    let target: URL
    try {
      target = new URL(url)
    } catch {
      this.sent.push(record)
      return Promise.resolve(undefined)
    }
    return new Promise((resolve) => {
      const secure = target.protocol === 'https:'
      const outgoing = (secure ? httpsRequest : httpRequest)(target, {
        method: 'POST',
        headers,
        agent: secure ? this.httpsAgent : this.httpAgent,
        timeout: callbackTimeoutMs,
      })
      this.inFlight.add(outgoing)
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
