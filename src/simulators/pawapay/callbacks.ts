import { OutboundRequests } from '../outbound.ts'
import type { CallbackSigner } from './signing.ts'
import type { Timers } from './state.ts'

/** The content type of pawaPay's callbacks, as its signed-callback examples show it. */
const contentType = 'application/json; charset=UTF-8'

/**
 * Sends pawaPay's callbacks: a POST of the JSON body, retried while the receiver does not answer
 * 2xx (pawaPay: "we will retry delivering the callback for 15 minutes"), signed when a signer is
 * given. Every attempt is recorded.
 */
export class CallbackSender extends OutboundRequests {
  constructor(
    private readonly timers: Timers,
    private readonly retryDelaysMs: readonly number[],
    private readonly signer: CallbackSigner | undefined,
  ) {
    super()
  }

  /** Sends one callback; `attempt` counts the retries already made. */
  send(url: string, body: string, attempt = 0): void {
    this.deliver(url, body, attempt).catch(() => undefined)
  }

  private async deliver(url: string, body: string, attempt: number): Promise<void> {
    const headers: Record<string, string> = { 'content-type': contentType }
    if (this.signer) Object.assign(headers, await this.signer.sign(url, body, contentType))
    if (this.closed) return
    const status = await this.post(url, 'POST', headers, body)
    const delay = this.retryDelaysMs[attempt]
    const delivered = status !== undefined && status >= 200 && status < 300
    if (!delivered && delay !== undefined && !this.closed) {
      this.timers.after(delay, () => this.send(url, body, attempt + 1))
    }
  }
}
