import { OutboundRequests } from '../outbound.ts'

/**
 * Sends MoMo's callbacks: one request with the final status as JSON, unsigned, never retried
 * (momodeveloper.mtn.com/api-documentation/callback: "The Wallet Platform will only send the
 * callback once. There is no retry").
 */
export class CallbackSender extends OutboundRequests {
  send(url: string, method: string, body: Record<string, unknown>): void {
    void this.post(url, method, { 'content-type': 'application/json' }, JSON.stringify(body))
  }
}
