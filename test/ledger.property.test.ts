import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import fc from 'fast-check'
import type { IssuedMerchant } from '../src/app/merchants.ts'
import { startApp, type TestApp } from './support/app.ts'
import {
  accountOf,
  assertBalanceMatchesEntries,
  countRows,
  readBalances,
  readLedgerEntries,
} from './support/ledger.ts'
import { describeEachStore } from './support/stores.ts'

/**
 * CONTRACT.md, Balances and the ledger, as a model-based property: random sequences of every
 * kind of operation, with random amounts and sandbox outcomes, go through the real HTTP API;
 * after every step the real rows must satisfy the ledger's invariants and match a model that
 * follows the contract's rules.
 */

// No rate limit in the way, and pending sandbox operations stay pending while a run lasts.
const environment = { RATE_LIMIT_PER_SECOND: '0', SANDBOX_DELAY_MS: '3600000', OPERATION_TTL: '2h' }
const callbackUrl = 'http://127.0.0.1:9/callback'

type SingleKind = 'collect' | 'recharge' | 'disbursement' | 'withdraw'
type Currency = 'XOF' | 'GHS'
type Outcome = 'succeeded' | 'failed' | 'error' | 'pending'

const scale: Record<Currency, number> = { XOF: 0, GHS: 2 }
const routes: Record<Currency, { country: string; channel: string }[]> = {
  XOF: [
    { country: 'CI', channel: 'orange-money' },
    { country: 'SN', channel: 'wave' },
  ],
  GHS: [{ country: 'GH', channel: 'mtn-momo' }],
}

/** The default fee schedule (migration 0002), in thousandths of a percent. */
function defaultFeeRule(kind: SingleKind, channel: string) {
  const percentageMilli = {
    collect: channel === 'wave' ? 1_000 : 1_500,
    recharge: 0,
    disbursement: channel === 'wave' ? 500 : 1_000,
    withdraw: 500,
  }[kind]
  return { percentageMilli, merchantBears: kind !== 'recharge' }
}

const isCashOut = (kind: SingleKind) => kind === 'disbursement' || kind === 'withdraw'

function cashAmountOf(kind: SingleKind, channel: string, amountMinor: number): number {
  const rule = defaultFeeRule(kind, channel)
  const exact = BigInt(amountMinor) * BigInt(rule.percentageMilli)
  const fees = Number((exact + 50_000n) / 100_000n) // round half up of amount * percentage / 100
  if (!rule.merchantBears) return amountMinor
  return isCashOut(kind) ? amountMinor + fees : amountMinor - fees
}

interface Side {
  route: { country: string; channel: string }
  amountMinor: number
  suffix: string
  outcome: Outcome
}

type Step =
  | { kind: SingleKind; currency: Currency; side: Side }
  | { kind: 'transfer'; currency: Currency; from: Side; to: Side }

// ---- what to generate ----

const sandboxPhone = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .integer({ min: 0, max: 999 })
      .filter((n) => n < 900 || n > 906)
      .map((n) => ({ suffix: String(n).padStart(3, '0'), outcome: 'succeeded' as Outcome })),
  },
  { weight: 1, arbitrary: fc.constant({ suffix: '901', outcome: 'failed' as Outcome }) },
  { weight: 1, arbitrary: fc.constant({ suffix: '904', outcome: 'error' as Outcome }) },
  {
    weight: 2,
    arbitrary: fc
      .constantFrom('900', '902', '903', '905', '906')
      .map((suffix) => ({ suffix, outcome: 'pending' as Outcome })),
  },
)

/** Within the catalogue's limits; XOF amounts reach past the 1,000,000 opening balance. */
function amountMinor(currency: Currency, kind: SingleKind): fc.Arbitrary<number> {
  // Up to 5,000 GHS: above 8,192.02 GHS, amounts with pesewas meet the toMinorUnits precision
  // defect that pricing.property.test.ts reports; widen to the 20,000 limit once it is fixed.
  if (currency === 'GHS') return fc.integer({ min: 100, max: 500_000 })
  const max = kind === 'recharge' || kind === 'withdraw' ? 1_500_000 : 2_000_000
  return fc.oneof(fc.integer({ min: 100, max: 50_000 }), fc.integer({ min: 100, max }))
}

function side(currency: Currency, kind: SingleKind): fc.Arbitrary<Side> {
  return fc
    .record({
      route: fc.constantFrom(...routes[currency]),
      amountMinor: amountMinor(currency, kind),
      phone: sandboxPhone,
    })
    .map(({ route, amountMinor, phone }) => ({ route, amountMinor, ...phone }))
}

const currency = fc.oneof(
  { weight: 3, arbitrary: fc.constant<Currency>('XOF') },
  { weight: 1, arbitrary: fc.constant<Currency>('GHS') },
)

const step: fc.Arbitrary<Step> = currency.chain((currency) =>
  fc.oneof(
    ...(['collect', 'recharge', 'disbursement', 'withdraw'] as const).map((kind) =>
      side(currency, kind).map((main): Step => ({ kind, currency, side: main })),
    ),
    fc
      .record({ from: side(currency, 'collect'), to: side(currency, 'disbursement') })
      .map(({ from, to }): Step => ({ kind: 'transfer', currency, from, to })),
  ),
)

// Always run first: one sequence that walks every rule of the model at least once.
const orange = routes.XOF[0]!
const wave = routes.XOF[1]!
const ok = { suffix: '123', outcome: 'succeeded' as Outcome }
const failed = { suffix: '901', outcome: 'failed' as Outcome }
const error = { suffix: '904', outcome: 'error' as Outcome }
const pending = { suffix: '900', outcome: 'pending' as Outcome }
const xof = (route: Side['route'], amountMinor: number, phone: typeof ok): Side => ({
  route,
  amountMinor,
  ...phone,
})
const everyRule: Step[] = [
  { kind: 'withdraw', currency: 'XOF', side: xof(orange, 1_500_000, ok) }, // insufficient_balance
  { kind: 'disbursement', currency: 'XOF', side: xof(orange, 10_000, pending) },
  { kind: 'transfer', currency: 'XOF', from: xof(wave, 20_000, ok), to: xof(orange, 5_000, failed) }, // refunded
  { kind: 'transfer', currency: 'XOF', from: xof(orange, 20_000, ok), to: xof(wave, 5_000, error) }, // refunded
  { kind: 'transfer', currency: 'XOF', from: xof(orange, 20_000, failed), to: xof(orange, 5_000, ok) },
  { kind: 'transfer', currency: 'XOF', from: xof(orange, 20_000, error), to: xof(orange, 5_000, ok) },
  { kind: 'transfer', currency: 'XOF', from: xof(orange, 20_000, ok), to: xof(orange, 5_000, ok) },
  { kind: 'transfer', currency: 'XOF', from: xof(orange, 20_000, pending), to: xof(orange, 5_000, ok) },
  { kind: 'transfer', currency: 'XOF', from: xof(wave, 20_000, ok), to: xof(orange, 5_000, pending) },
  { kind: 'transfer', currency: 'XOF', from: xof(wave, 20_000, ok), to: xof(orange, 2_000_000, ok) }, // insufficient
  { kind: 'collect', currency: 'XOF', side: xof(wave, 30_000, ok) },
  { kind: 'recharge', currency: 'XOF', side: xof(orange, 40_000, failed) },
  { kind: 'withdraw', currency: 'XOF', side: xof(orange, 100_000, error) },
  { kind: 'disbursement', currency: 'GHS', side: { route: routes.GHS[0]!, amountMinor: 123_45, ...ok } },
]

// ---- the model: CONTRACT.md's rules, applied to posted and held per currency ----

interface Expectation {
  httpStatus: 200 | 422
  status?: Outcome
  cashAmounts: number[]
}

class LedgerModel {
  readonly posted = new Map<string, number>()
  readonly held = new Map<string, number>()

  available(currency: string): number {
    return (this.posted.get(currency) ?? 0) - (this.held.get(currency) ?? 0)
  }

  private move(currency: string, posted: number, held: number): void {
    this.posted.set(currency, (this.posted.get(currency) ?? 0) + posted)
    this.held.set(currency, (this.held.get(currency) ?? 0) + held)
  }

  apply(step: Step): Expectation {
    return step.kind === 'transfer' ? this.applyTransfer(step) : this.applySingle(step)
  }

  private applySingle(step: Extract<Step, { side: Side }>): Expectation {
    const { kind, currency, side } = step
    const cash = cashAmountOf(kind, side.route.channel, side.amountMinor)
    if (!isCashOut(kind)) {
      // A cash-in is credited when it succeeds.
      if (side.outcome === 'succeeded') this.move(currency, cash, 0)
      return { httpStatus: 200, status: side.outcome, cashAmounts: [cash] }
    }
    // A cash-out holds its cashAmount at initiation, or is refused and creates nothing.
    if (this.available(currency) < cash) return { httpStatus: 422, cashAmounts: [cash] }
    if (side.outcome === 'succeeded') this.move(currency, -cash, 0)
    if (side.outcome === 'pending') this.move(currency, 0, cash)
    return { httpStatus: 200, status: side.outcome, cashAmounts: [cash] }
  }

  private applyTransfer(step: Extract<Step, { kind: 'transfer' }>): Expectation {
    const { currency, from, to } = step
    const fromCash = cashAmountOf('collect', from.route.channel, from.amountMinor)
    const toCash = cashAmountOf('disbursement', to.route.channel, to.amountMinor)
    const cashAmounts = [fromCash, toCash]
    if (this.available(currency) < toCash) return { httpStatus: 422, cashAmounts }
    this.move(currency, 0, toCash) // the `to` side's hold
    if (from.outcome !== 'succeeded') {
      if (from.outcome !== 'pending') this.move(currency, 0, -toCash) // released: nothing was paid out
      return { httpStatus: 200, status: from.outcome, cashAmounts }
    }
    this.move(currency, fromCash, fromCash) // credited, with a refund reserve held
    if (to.outcome === 'pending') return { httpStatus: 200, status: 'pending', cashAmounts }
    if (to.outcome === 'succeeded') {
      this.move(currency, -toCash, -toCash - fromCash) // paid out; the reserve released
      return { httpStatus: 200, status: 'succeeded', cashAmounts }
    }
    this.move(currency, -fromCash, -toCash - fromCash) // hold released; the reserve posted: the refund
    return { httpStatus: 200, status: 'failed', cashAmounts }
  }
}

// ---- reading the real rows ----

async function readLedger(app: TestApp, merchantId: string) {
  const [balances, entries, operationCount] = await Promise.all([
    readBalances(app, merchantId),
    readLedgerEntries(app, merchantId),
    countRows(app, 'operations', merchantId),
  ])
  return { balances, entries, operationCount }
}

/** The invariants of CONTRACT.md, Balances and the ledger, over every (mode, currency) of the merchant. */
function assertLedgerInvariants(ledger: Awaited<ReturnType<typeof readLedger>>, context: string): void {
  const keys = new Set([...ledger.balances, ...ledger.entries].map(accountOf))
  for (const key of keys) {
    const balance = ledger.balances.find((row) => accountOf(row) === key)
    assert.ok(balance, `${context}: ${key} has ledger entries but no balance`)
    const entries = ledger.entries.filter((row) => accountOf(row) === key)
    assertBalanceMatchesEntries(balance, entries, `${context}: ${key}`)
    assert.ok(balance.posted_minor >= 0, `${context}: ${key} posted is never negative`)
    assert.ok(balance.held_minor >= 0, `${context}: ${key} held is never negative`)
    assert.ok(balance.held_minor <= balance.posted_minor, `${context}: ${key} held never exceeds posted`)
    for (const entry of entries)
      assert.ok(entry.amount_minor > 0, `${context}: entry ${entry.reference} moves money`)
  }
}

function assertMatchesModel(
  ledger: Awaited<ReturnType<typeof readLedger>>,
  model: LedgerModel,
  context: string,
) {
  for (const [currency, posted] of model.posted) {
    const balance = ledger.balances.find((row) => row.mode === 'sandbox' && row.currency === currency)
    assert.deepEqual(
      { currency, posted: balance?.posted_minor, held: balance?.held_minor },
      { currency, posted, held: model.held.get(currency) ?? 0 },
      `${context}: the sandbox ${currency} balance is what the contract's rules give`,
    )
  }
}

// ---- the requests ----

const major = (minor: number, currency: Currency) => minor / 10 ** scale[currency]
const minor = (amount: number, currency: Currency) => Math.round(amount * 10 ** scale[currency])

function sideBody(side: Side, currency: Currency) {
  return {
    amount: major(side.amountMinor, currency),
    channel: side.route.channel,
    country: side.route.country,
    customer: { phoneNumber: `2250700${side.suffix}` },
  }
}

function requestBody(step: Step, merchantReference: string) {
  if (step.kind === 'transfer') {
    return {
      from: sideBody(step.from, step.currency),
      to: sideBody(step.to, step.currency),
      merchantReference,
      callbackUrl,
    }
  }
  return { ...sideBody(step.side, step.currency), merchantReference, callbackUrl }
}

interface PricedRecord {
  cashAmount: number
  from: { cashAmount: number }
  to: { cashAmount: number }
}

function cashAmountsIn(record: PricedRecord, step: Step): number[] {
  return step.kind === 'transfer'
    ? [minor(record.from.cashAmount, step.currency), minor(record.to.cashAmount, step.currency)]
    : [minor(record.cashAmount, step.currency)]
}

async function runSteps(app: TestApp, merchant: IssuedMerchant, steps: Step[]): Promise<void> {
  const client = app.client(merchant.sandbox)
  const opening = await readLedger(app, merchant.id)
  const model = new LedgerModel()
  // CONTRACT.md, Sandbox: balances open at 1,000,000 per currency of the catalogue.
  for (const [currency, digits] of Object.entries({ XOF: 0, XAF: 0, GHS: 2, KES: 2, UGX: 0 })) {
    const balance = opening.balances.find((row) => row.mode === 'sandbox' && row.currency === currency)
    assert.deepEqual(
      [balance?.posted_minor, balance?.held_minor],
      [1_000_000 * 10 ** digits, 0],
      `${currency} opens funded`,
    )
    model.posted.set(currency, 1_000_000 * 10 ** digits)
  }
  assertLedgerInvariants(opening, 'after merchant creation')

  for (const [index, current] of steps.entries()) {
    const context = `step ${index + 1} (${current.kind} ${current.currency})`
    const before = await readLedger(app, merchant.id)
    const transactionsBefore = await client.get('/api/v1/transaction', { perPage: 1 })
    const merchantReference = `step-${index + 1}`
    const expected = model.apply(current)
    const response = await client.post(`/api/v1/${current.kind}`, requestBody(current, merchantReference))
    assert.equal(response.status, expected.httpStatus, `${context}: ${response.text}`)
    const after = await readLedger(app, merchant.id)
    assertLedgerInvariants(after, context)
    assertMatchesModel(after, model, context)

    if (expected.httpStatus === 422) {
      assert.equal(response.body.code, 'insufficient_balance', context)
      // Nothing is created: no operation, no entry, nothing listed.
      assert.equal(after.operationCount, before.operationCount, `${context}: no operation row`)
      assert.equal(after.entries.length, before.entries.length, `${context}: no ledger entry`)
      const listed = await client.get(`/api/v1/${current.kind}`, { merchantReference })
      assert.equal(listed.status, 200, context)
      assert.equal(
        listed.body.meta.pagination.total,
        0,
        `${context}: nothing listed under ${merchantReference}`,
      )
      const transactionsAfter = await client.get('/api/v1/transaction', { perPage: 1 })
      assert.equal(
        transactionsAfter.body.meta.pagination.total,
        transactionsBefore.body.meta.pagination.total,
        `${context}: no transaction listed`,
      )
      continue
    }
    const record = response.body.data[current.kind]
    assert.equal(record.status, expected.status, `${context}: status`)
    assert.deepEqual(cashAmountsIn(record, current), expected.cashAmounts, `${context}: cashAmount`)
    assert.equal(after.operationCount, before.operationCount + 1, `${context}: one operation row`)
  }
}

describeEachStore('ledger invariants under random operation sequences', (store) => {
  let app: TestApp
  before(async () => {
    app = await startApp(store(), { environment })
  })
  after(() => app.close())

  test('postings sum to the balance, holds to held, nothing negative, held <= posted, after every step', {
    timeout: 180_000,
  }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), async (steps) => {
        await runSteps(app, await app.createMerchant(), steps)
      }),
      {
        numRuns: 20,
        examples: [[everyRule]],
        interruptAfterTimeLimit: 150_000,
        markInterruptAsFailure: true,
      },
    )
  })
})
