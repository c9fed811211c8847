import { OutboundRequests } from '../outbound.ts'

/**
 * Sends Orange's payment notifications: one POST of JSON to the payment's notif_url, unsigned
 * (the merchant checks the notif_token it was given), never retried.
 */
export class NotificationSender extends OutboundRequests {
  send(url: string, body: Record<string, unknown>): void {
    void this.post(url, 'POST', { 'content-type': 'application/json' }, JSON.stringify(body))
  }
}
