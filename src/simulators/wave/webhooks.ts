import { createHmac } from 'node:crypto'
import { OutboundRequests } from '../outbound.ts'
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
 * while the receiver does not answer 2xx in time. Every try is recorded.
 */
export class WebhookSender extends OutboundRequests {
  constructor(
    private readonly config: SimulatorConfig,
    private readonly timers: Timers,
  ) {
    super(config.webhookTimeoutMs)
  }

  /** Sends one event; the same event (same id and body) is what every retry carries. */
  send(type: string, data: Record<string, unknown>): void {
    const url = this.config.webhookUrl
    if (url === undefined) return
    const body = JSON.stringify({ id: eventId(), type, data })
    this.attempt(url, body, 0)
  }

  private headersFor(body: string): Record<string, string> {
    const headers: Record<string, string> = { 'content-type': 'application/json' }
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
    this.post(url, 'POST', this.headersFor(body), body).then((status) => {
      const delivered = status !== undefined && status >= 200 && status < 300
      const delay = this.config.webhookRetryDelaysMs[tries]
      if (delivered || delay === undefined || this.closed) return
      this.timers.after(delay, () => this.attempt(url, body, tries + 1))
    })
  }
}
