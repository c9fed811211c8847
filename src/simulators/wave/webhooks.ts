import { createHmac } from 'node:crypto'
import { type ClientRequest, Agent as HttpAgent, request as httpRequest } from 'node:http'
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https'
import type { SentCallback } from '../simulator.ts'
import type { SimulatorConfig } from './config.ts'
import { eventId } from './ids.ts'
import type { Timers } from './state.ts'

/**
 * `Wave-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>…]`: one HMAC-SHA256 per secret of the
 * timestamp followed directly by the raw body, no separator (docs.wave.com/webhook, and the
 * PHP verifier of the docs: `hash_hmac("sha256", $timestamp . $webhook_body, $secret)`).
 */
export function signatureHeader(secrets: readonly string[], timestamp: number, body: string): string {
  const signatures = secrets.map(
    (secret) => `v1=${createHmac('sha256', secret).update(`${timestamp}${body}`).digest('hex')}`,
  )
  return [`t=${timestamp}`, ...signatures].join(',')
}

/**
 * Sends Wave's webhooks to the one URL the business registered in its portal: a POST of
 * `{id, type, data}` as JSON, authenticated as the webhook's security strategy says, tried again
 * while the receiver does not answer 2xx in time. Every try is recorded. Its own agents keep no
 * socket alive, so close() ends everything.
 */
export class WebhookSender {
  readonly sent: SentCallback[] = []
  private readonly inFlight = new Set<ClientRequest>()
  private readonly httpAgent = new HttpAgent({ keepAlive: false })
  private readonly httpsAgent = new HttpsAgent({ keepAlive: false })
  private closed = false

  constructor(
    private readonly config: SimulatorConfig,
    private readonly timers: Timers,
  ) {}

  /** Sends one event; the same event (same id and body) is what every retry carries. */
  send(type: string, data: Record<string, unknown>): void {
    const url = this.config.webhookUrl
    if (url === undefined) return
    const body = JSON.stringify({ id: eventId(), type, data })
    this.attempt(url, body, 0)
  }

  private headersFor(body: string): Record<string, string> {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
    }
    const { webhookSecret, additionalWebhookSecrets, webhookSecurity } = this.config
    if (webhookSecurity === 'shared-secret') headers.authorization = `Bearer ${webhookSecret}`
    else {
      const timestamp = Math.floor(Date.now() / 1000)
      headers['wave-signature'] = signatureHeader(
        [webhookSecret, ...additionalWebhookSecrets],
        timestamp,
        body,
      )
    }
    return headers
  }

  /** One delivery; each try is signed anew, with the time it is sent. */
  private attempt(url: string, body: string, tries: number): void {
    if (this.closed) return
    const headers = this.headersFor(body)
    const sentAtMs = Date.now()
    this.post(url, headers, body).then((status) => {
      this.sent.push({ url, method: 'POST', headers, body, status, sentAtMs })
      const delivered = status !== undefined && status >= 200 && status < 300
      const delay = this.config.webhookRetryDelaysMs[tries]
      if (delivered || delay === undefined || this.closed) return
      this.timers.after(delay, () => this.attempt(url, body, tries + 1))
    })
  }

  /** The receiver's status, or undefined when it could not be reached or did not answer in time. */
  private post(url: string, headers: Record<string, string>, body: string): Promise<number | undefined> {
    let target: URL
    try {
      target = new URL(url)
    } catch {
      return Promise.resolve(undefined)
    }
    const secure = target.protocol === 'https:'
    return new Promise((resolve) => {
      const outgoing = (secure ? httpsRequest : httpRequest)(target, {
        method: 'POST',
        headers,
        agent: secure ? this.httpsAgent : this.httpAgent,
        timeout: this.config.webhookTimeoutMs,
      })
      this.inFlight.add(outgoing)
      const finish = (status: number | undefined) => {
        if (this.inFlight.delete(outgoing)) resolve(status)
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
