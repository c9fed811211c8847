// The README's merchant walk-through, through the typed client (client/sika-client.ts).
// Run against a started Sika (`npm start` prints the demo merchant's sandbox keys):
//   SIKA_URL=http://localhost:3000 SIKA_API_KEY=pk_test_... SIKA_SECRET_KEY=sk_test_... \
//     node --import tsx examples/walkthrough.ts
// Every reference is new on each run, so it can run again against the same server. It exits 1 on
// the first answer that is not the one the README promises.
import { createSikaClient, type SikaResult } from '../client/sika-client.ts'

const client = createSikaClient({
  baseUrl: required('SIKA_URL'),
  apiKey: required('SIKA_API_KEY'),
  secretKey: required('SIKA_SECRET_KEY'),
})
// Nothing listens there: the callbacks are retried in the background, which this script does not wait for.
const callbackUrl = 'http://127.0.0.1:9/sika/callback'
const run = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`
const reference = (name: string) => `${name}-${run}`

function required(name: string): string {
  const value = process.env[name]
  if (!value) throw new Error(`set ${name} (see the comment at the top of examples/walkthrough.ts)`)
  return value
}

class UnexpectedResult extends Error {}

process.on('uncaughtException', (error) => {
  console.error(error instanceof UnexpectedResult ? `FAILED: ${error.message}` : error)
  process.exit(1)
})

function check(condition: boolean, what: string): void {
  if (!condition) throw new UnexpectedResult(what)
}

/** The value of a call that must succeed; its typed failure otherwise ends the run. */
function expectOk<T, Operation>(result: SikaResult<T, Operation>, what: string): T {
  if (result.ok) return result.data
  const { status, code, message } = result.error
  throw new UnexpectedResult(`${what}: ${String(status)} ${String(code)}: ${message}`)
}

function say(line: string): void {
  console.log(`  ${line}`)
}

// ---- Channels ----
console.log('Channels your account may use')
const channels = expectOk(await client.channels.list(), 'list channels')
const collectPricing = channels
  .find((channel) => channel.channel === 'orange-money' && channel.country === 'CI')
  ?.operations.find((operation) => operation.operation === 'collect')?.pricing
check(collectPricing !== undefined, 'orange-money in CI offers collect')
say(
  `${channels.length} channel and country pairs, e.g. orange-money/CI collect at ${collectPricing?.percentageFee} %`,
)

// ---- Recharge, then read it back ----
console.log('Recharge, then read it back with its token')
const recharge = expectOk(
  await client.recharge.initiate({
    amount: 50_000,
    channel: 'orange-money',
    country: 'CI',
    customer: { phoneNumber: '+2250700000001', fullName: 'Treasury' },
    merchantReference: reference('recharge'),
    callbackUrl,
  }),
  'recharge',
)
check(recharge.status === 'succeeded', `the recharge succeeded (it is ${recharge.status})`)
const readBack = expectOk(await client.recharge.get(recharge.token), 'read the recharge back')
check(readBack.token === recharge.token && readBack.amount === 50_000, 'the recharge reads back as sent')
say(`recharge ${recharge.token}: ${readBack.status}, ${readBack.cashAmount} ${readBack.currency} credited`)

// ---- Collect ----
console.log('Collect from a customer')
const collectBody = {
  amount: 5000,
  channel: 'orange-money',
  country: 'CI',
  customer: { phoneNumber: '+2250700000002', fullName: 'Awa Kone', email: 'awa@example.com' },
  merchantReference: reference('order'),
  callbackUrl,
}
const collect = expectOk(await client.collect.initiate(collectBody), 'collect')
const fees = collect.pricing.feesAmount
check(collect.status === 'succeeded', `the collect succeeded (it is ${collect.status})`)
check(
  fees ===
    Math.round((5000 * (collectPricing?.percentageFee ?? 0)) / 100 + (collectPricing?.additionalFee ?? 0)),
  'the fees are the ones GET /channels announced',
)
check(
  collect.cashAmount === (collect.pricing.supportedByAccount ? 5000 - fees : 5000),
  'cashAmount is the amount less the fees the merchant bears',
)
say(`collect ${collect.token}: ${collect.status}, cashAmount ${collect.cashAmount} for 5000 (fees ${fees})`)

// ---- Disbursement ----
console.log('Disbursement to a customer')
const disbursement = expectOk(
  await client.disbursement.initiate({
    amount: 10_000,
    channel: 'wave',
    country: 'SN',
    customer: { phoneNumber: '+221770000003', fullName: 'Moussa Diop' },
    merchantReference: reference('payout'),
    callbackUrl,
  }),
  'disbursement',
)
check(disbursement.status === 'succeeded', `the disbursement succeeded (it is ${disbursement.status})`)
say(
  `disbursement ${disbursement.token}: ${disbursement.status}, ${disbursement.cashAmount} taken from the balance`,
)

// ---- Withdraw ----
console.log('Withdraw part of the balance')
const withdraw = expectOk(
  await client.withdraw.initiate({
    amount: 100_000,
    channel: 'mtn-momo',
    country: 'CI',
    customer: { phoneNumber: '+2250500000004', fullName: 'Merchant treasury' },
    merchantReference: reference('withdraw'),
    callbackUrl,
  }),
  'withdraw',
)
check(withdraw.status === 'succeeded', `the withdraw succeeded (it is ${withdraw.status})`)
say(`withdraw ${withdraw.token}: ${withdraw.status}`)

// ---- Transfer ----
console.log('Transfer between two customers')
const transfer = expectOk(
  await client.transfer.initiate({
    from: {
      amount: 7000,
      channel: 'orange-money',
      country: 'CI',
      customer: { phoneNumber: '+2250700000005' },
    },
    to: { amount: 6500, channel: 'moov-money', country: 'BJ', customer: { phoneNumber: '+22961000006' } },
    merchantReference: reference('transfer'),
    callbackUrl,
  }),
  'transfer',
)
check(transfer.status === 'succeeded', `the transfer succeeded (it is ${transfer.status})`)
say(`transfer ${transfer.token}: from ${transfer.from.status}, to ${transfer.to.status}`)

// ---- Lists, page by page ----
console.log('Lists, followed page by page with the async iterator')
const firstCollects = expectOk(await client.collect.list({ page: 1, perPage: 2 }), 'list collects')
check(firstCollects.items[0]?.token === collect.token, 'the newest collect comes first')
say(
  `collects, page 1 of ${firstCollects.pagination.lastPage}: ${firstCollects.items.map((item) => item.token).join(', ')}`,
)

// The opening balances are recharges too, so even a fresh merchant has several pages of 2.
let rechargePages = 0
let rechargeTotal = 0
const rechargeTokens = new Set<string>()
for await (const page of client.recharge.pages({ perPage: 2 })) {
  rechargePages++
  rechargeTotal = page.pagination.total
  for (const item of page.items) {
    check(!rechargeTokens.has(item.token), `recharge ${item.token} is listed once`)
    rechargeTokens.add(item.token)
  }
}
check(
  rechargeTokens.size === rechargeTotal,
  `every recharge is visited (${rechargeTokens.size} of ${rechargeTotal})`,
)
check(rechargeTokens.has(recharge.token), 'the new recharge is listed')
say(`recharges: ${rechargeTokens.size} in ${rechargePages} pages of 2`)

const waveDisbursements = expectOk(
  await client.disbursement.list({ status: 'succeeded', channel: 'wave' }),
  'list wave disbursements',
)
check(
  waveDisbursements.items.every((item) => item.channel === 'wave' && item.status === 'succeeded'),
  'the disbursement filters hold',
)
check(waveDisbursements.items[0]?.token === disbursement.token, 'the newest wave disbursement comes first')
say(`succeeded wave disbursements: ${waveDisbursements.pagination.total}, newest ${disbursement.token}`)

// ---- Balance movements ----
console.log('Balance movements')
const latest = expectOk(await client.transactions.list({ perPage: 5 }), 'list transactions')
for (const movement of latest.items) {
  say(`${movement.reference} ${movement.type} ${movement.status} ${movement.amount} ${movement.currency}`)
}
const cashOutTokens = new Set<string>()
for await (const movement of client.transactions.listAll({
  type: 'cash-out',
  status: 'succeeded',
  perPage: 5,
})) {
  cashOutTokens.add(movement.token)
}
check(
  cashOutTokens.has(disbursement.token) && cashOutTokens.has(withdraw.token),
  'the disbursement and the withdraw are posted cash-outs',
)
say(`posted cash-outs: ${cashOutTokens.size}, the disbursement and the withdraw among them`)

// ---- Refunds, the balance and the CSV statement ----
console.log('Refund part of the collect, then read the balance and the statement')
const refund = expectOk(
  await client.refund.initiate(collect.token, {
    merchantReference: reference('refund'),
    amount: 2000,
    metadata: { reason: 'damaged' },
  }),
  'refund part of the collect',
)
check(refund.collect === collect.token && refund.amount === 2000, 'the refund names its collect')
const refundedCollect = expectOk(await client.collect.get(collect.token), 'read the collect again')
check(refundedCollect.refundedAmount === 2000, 'the collect counts what was refunded')
say(
  `refund ${refund.token}: ${refund.status}, ${refund.amount} ${refund.currency} of collect ${collect.token}`,
)
const balances = expectOk(await client.balance.get(), 'read the balance')
for (const balance of balances) {
  if (balance.currency === 'XOF')
    say(
      `balance ${balance.balance} ${balance.currency}, held ${balance.held}, available ${balance.available}`,
    )
}
const statement = expectOk(
  await client.transactions.statement({ operation: 'refund' }),
  'download the refunds statement',
)
const statementLines = statement.trimEnd().split('\r\n')
check(
  statementLines.some((line) => line.endsWith(refund.token)),
  'the statement shows the refund',
)
say(`statement: ${statementLines.length - 1} refund row(s); header ${statementLines[0]}`)

// ---- Callbacks: the events and their deliveries ----
console.log('Callback events of the collect')
const events = expectOk(await client.events.list({ token: collect.token }), 'list the collect events')
const succeededEvent = events.items.find((event) => event.type === 'collect.succeeded')
check(succeededEvent !== undefined, 'the collect made a collect.succeeded event')
if (succeededEvent) {
  const event = expectOk(await client.events.get(succeededEvent.id), 'read the event')
  say(
    `${event.id} ${event.type}: ${event.deliveryStatus}, ${event.deliveryAttempts.length} attempt(s) so far`,
  )
  const redelivered = expectOk(await client.events.redeliver(event.id), 'redeliver the event')
  say(`redelivery queued: ${redelivered.deliveryStatus}`)
}

// ---- A payout batch: one request, each item an ordinary disbursement ----
console.log('A payout batch of two salaries, the second to a number that fails in the sandbox')
const batch = expectOk(
  await client.payoutBatches.create({
    merchantReference: reference('salaries'),
    callbackUrl,
    items: [
      {
        amount: 25000,
        channel: 'wave',
        country: 'SN',
        customer: { phoneNumber: '+221770000011', fullName: 'Awa Ndiaye' },
        merchantReference: reference('salary-awa'),
      },
      {
        amount: 30000,
        channel: 'wave',
        country: 'SN',
        customer: { phoneNumber: '+221770000901', fullName: 'Yao Diallo' },
        merchantReference: reference('salary-yao'),
      },
    ],
  }),
  'send a payout batch',
)
let batchNow = batch
for (let attempt = 0; batchNow.status !== 'completed' && attempt < 100; attempt++) {
  await new Promise((resolve) => setTimeout(resolve, 100))
  batchNow = expectOk(await client.payoutBatches.get(batch.token), 'read the batch')
}
check(batchNow.status === 'completed', `the batch completed (it is ${batchNow.status})`)
check(batchNow.counts.succeeded === 1 && batchNow.counts.failed === 1, 'one salary paid, the other failed')
const batchItems = expectOk(await client.disbursement.list({ batch: batch.token }), 'list the items')
check(batchItems.items.length === 2, 'the batch lists its two disbursements')
say(
  `batch ${batch.token}: ${batchNow.status}, ${batchNow.totalAmount} ${batchNow.currency} held at acceptance`,
)

// ---- Cancel: a payout its operator already holds cannot be taken back ----
console.log('Cancel a payout that was already paid')
const notCancelable = await client.disbursement.cancel(disbursement.token)
check(!notCancelable.ok, 'a paid disbursement cannot be canceled')
if (!notCancelable.ok) {
  check(notCancelable.error.code === 'not_cancelable', `a 409 (got ${String(notCancelable.error.code)})`)
  say(`${String(notCancelable.error.status)} ${notCancelable.error.code}: ${notCancelable.error.message}`)
}

// ---- A payment link: a page where customers pay, with its QR code ----
console.log('A payment link, then closed')
const link = expectOk(
  await client.paymentLinks.create({
    merchantReference: reference('wax-print'),
    description: 'Wax print, 6 yards',
    country: 'CI',
    amount: 12000,
  }),
  'create a payment link',
)
check(link.status === 'active' && link.url.endsWith(`/pay/${link.token}`), 'the link is active at its page')
say(`link ${link.token}: ${link.url} (QR code ${link.qrCodeUrl})`)
const closedLink = expectOk(await client.paymentLinks.close(link.token), 'close the link')
check(closedLink.status === 'closed', 'the link is closed')

// ---- Idempotency, and errors as typed values ----
console.log('The same reference again, and a deliberate error')
const again = expectOk(await client.collect.initiate(collectBody), 'the same collect again')
check(again.token === collect.token, 'the same reference and body answer the existing collect')
say(`same reference, same body: the existing collect ${again.token}`)

const duplicate = await client.collect.initiate({ ...collectBody, amount: 6000 })
check(!duplicate.ok, 'the same reference with another body is refused')
if (!duplicate.ok) {
  check(
    duplicate.error.code === 'duplicate_merchant_reference',
    `a 409 (got ${String(duplicate.error.code)})`,
  )
  say(
    `same reference, another body: ${String(duplicate.error.status)} ${duplicate.error.code}: ${duplicate.error.message}`,
  )
}

const invalid = await client.collect.initiate({
  ...collectBody,
  merchantReference: reference('invalid'),
  customer: { phoneNumber: 'not a phone' },
})
check(!invalid.ok, 'a malformed phone number is refused')
if (!invalid.ok) {
  check(invalid.error.code === 'validation_failed', `a 422 (got ${String(invalid.error.code)})`)
  const fields = invalid.error.code === 'validation_failed' ? (invalid.error.errors ?? []) : []
  check(
    fields.some((field) => field.field === 'customer.phoneNumber'),
    'the error names customer.phoneNumber',
  )
  say(
    `malformed phone: ${String(invalid.error.status)} ${invalid.error.code}, fields ${fields.map((f) => f.field).join(', ')}`,
  )
}

console.log('Walk-through complete')
