import { currencies, toMajorUnits } from '../../domain/money.ts'
import { isCashIn, type Side } from '../../domain/operation.ts'
import type { Status } from '../../domain/status.ts'
import { escapeHtml, styleHashOf } from '../pages/html.ts'

export interface CheckoutView {
  token: string
  merchantName: string
  channelName: string
  side: Side
  status: Status
  /** Pending and past its time to live, even if expiry has not run yet. */
  expired: boolean
  /** Present only while the customer may still decide. */
  csrf?: string
  /** The merchant is suspended: the page offers no decision and says why. */
  merchantSuspended: boolean
  sandbox: boolean
}

const css = `
*{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f3f4f6;color:#111827}
main{max-width:26rem;margin:0 auto;padding:1.5rem 1rem}
.card{background:#fff;border-radius:1rem;padding:1.5rem;box-shadow:0 1px 3px rgba(0,0,0,.12)}
.merchant{margin:0;color:#4b5563;font-weight:600}
h1{margin:.25rem 0 1rem;font-size:2rem}
dl{display:grid;grid-template-columns:auto 1fr;gap:.4rem 1rem;margin:0 0 1.25rem}
dt{color:#6b7280}dd{margin:0;text-align:right;font-variant-numeric:tabular-nums;overflow-wrap:anywhere}
.status{display:inline-block;padding:.1rem .6rem;border-radius:999px;background:#e5e7eb;font-weight:600}
.status-succeeded{background:#d1fae5;color:#065f46}.status-failed,.status-error{background:#fee2e2;color:#991b1b}
.status-canceled{background:#fef3c7;color:#92400e}
form{margin:0}.actions{display:grid;gap:.75rem}
button{width:100%;min-height:3rem;font-size:1.1rem;font-weight:600;border:0;border-radius:.75rem;cursor:pointer}
.pay{background:#047857;color:#fff}.decline{background:#fff;color:#991b1b;border:2px solid #fecaca}
.state{margin:0;font-size:1.1rem}.note{margin:1rem 0 0;color:#6b7280;font-size:.85rem;text-align:center}
`

/** The CSP allows this one stylesheet by its hash, and no script at all. */
export const checkoutStyleHash = styleHashOf(css)

const statusWords: Record<Status, string> = {
  pending: 'Waiting for your decision',
  succeeded: 'Paid',
  failed: 'Failed',
  canceled: 'Canceled',
  error: 'Could not be completed',
}

export function renderCheckoutPage(view: CheckoutView): string {
  const { side } = view
  const money = (minor: number) =>
    `${toMajorUnits(minor, side.currency).toLocaleString('en-US', {
      minimumFractionDigits: currencies[side.currency].scale,
    })} ${side.currency}`
  const cashIn = isCashIn(side)
  const shownStatus: Status = view.expired ? 'canceled' : view.status
  const stateWords = view.expired ? 'Expired' : statusWords[view.status]
  const decision = view.csrf
    ? `<div class="actions">
        <form method="post" action="/checkout/${escapeHtml(view.token)}/pay">
          <input type="hidden" name="csrf" value="${escapeHtml(view.csrf)}">
          <button class="pay" type="submit" name="decision" value="pay">${cashIn ? 'Pay' : 'Accept'} ${escapeHtml(money(side.transactionAmountMinor))}</button>
        </form>
        <form method="post" action="/checkout/${escapeHtml(view.token)}/decline">
          <input type="hidden" name="csrf" value="${escapeHtml(view.csrf)}">
          <button class="decline" type="submit" name="decision" value="decline">Decline</button>
        </form>
      </div>`
    : view.merchantSuspended && view.status === 'pending'
      ? `<p class="state">${escapeHtml(view.merchantName)} cannot take ${cashIn ? 'payments' : 'payouts'} at the moment: nothing was paid. You can close this page.</p>`
      : `<p class="state">This ${cashIn ? 'payment' : 'payout'} is <strong>${escapeHtml(stateWords.toLowerCase())}</strong>. You can close this page.</p>`
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(view.merchantName)} · Sika checkout</title>
<style>${css}</style>
</head>
<body>
<main>
  <div class="card">
    <p class="merchant">${escapeHtml(view.merchantName)}</p>
    <h1>${escapeHtml(money(side.transactionAmountMinor))}</h1>
    <dl>
      ${side.supportedByAccount ? '' : `<dt>Fees</dt><dd>${escapeHtml(money(side.feesMinor))}</dd>`}
      <dt>${cashIn ? 'To pay' : 'You receive'}</dt><dd>${escapeHtml(money(side.transactionAmountMinor))}</dd>
      <dt>Channel</dt><dd>${escapeHtml(view.channelName)} · ${escapeHtml(side.country)}</dd>
      <dt>Status</dt><dd><span class="status status-${shownStatus}">${escapeHtml(stateWords)}</span></dd>
    </dl>
    ${decision}
  </div>
  ${view.sandbox ? '<p class="note">Sandbox checkout: no real money moves.</p>' : ''}
</main>
</body>
</html>`
}

export function renderCheckoutMessage(title: string, message: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title><style>${css}</style></head><body><main><div class="card"><h1>${escapeHtml(title)}</h1><p class="state">${escapeHtml(message)}</p></div></main></body></html>`
}
