import { type ClientRequest, Agent as HttpAgent, request as httpRequest } from 'node:http'
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https'
import type { SentCallback } from '../simulator.ts'

/** How long the simulator waits for a receiver before it records the notification as unanswered. */
const notificationTimeoutMs = 10_000

/**
 * Sends Orange's payment notifications: one POST of JSON to the payment's notif_url, unsigned
 * (the merchant checks the notif_token it was given), never retried. Its own agents keep no
 * socket alive, so close() ends everything.
 */
export class NotificationSender {
  readonly sent: SentCallback[] = []
  private readonly inFlight = new Set<ClientRequest>()
  private readonly httpAgent = new HttpAgent({ keepAlive: false })
  private readonly httpsAgent = new HttpsAgent({ keepAlive: false })

  send(url: string, body: Record<string, unknown>): void {
    const text = JSON.stringify(body)
    const headers = { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) }
    const record: SentCallback = {
      url,
      method: 'POST',
      headers,
      body: text,
      status: undefined,
      sentAtMs: Date.now(),
    }
    let target: URL
    try {
      target = new URL(url)
    } catch {
      this.sent.push(record)
      return
    }
    const secure = target.protocol === 'https:'
    const outgoing = (secure ? httpsRequest : httpRequest)(target, {
      method: 'POST',
      headers,
      agent: secure ? this.httpsAgent : this.httpAgent,
      timeout: notificationTimeoutMs,
    })
    this.inFlight.add(outgoing)
    const finish = (status: number | undefined) => {
      if (!this.inFlight.delete(outgoing)) return
      this.sent.push({ ...record, status })
    }
    outgoing.on('response', (answer) => {
      answer.resume()
      answer.on('end', () => finish(answer.statusCode))
      answer.on('error', () => finish(answer.statusCode))
    })
    outgoing.on('timeout', () => outgoing.destroy())
    outgoing.on('error', () => finish(undefined))
    outgoing.end(text)
  }

  close(): void {
    for (const outgoing of this.inFlight) outgoing.destroy()
    this.inFlight.clear()
    this.httpAgent.destroy()
    this.httpsAgent.destroy()
  }
}
