import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { OperatorLine } from '../../src/domain/operator-lines.ts'
import type { OperatorStatement, ProviderAdapter } from '../../src/providers/provider.ts'
import {
  type RunningWaveSimulator,
  startWaveSimulator,
  type WaveSimulatorOptions,
} from '../../src/simulators/wave/wave-simulator.ts'
import { connectionsOf, sideRequest } from '../support/operator-connections.ts'

/**
 * CONTRACT.md, Reconciliation and Platform console: Wave's balance (`GET /v1/balance`) and its
 * transactions of a window (`GET /v1/transactions?date=`, page after page), read through the
 * adapter against the Wave simulator as a real server, and normalized: each line names the side
 * it belongs to as Sika stores it (`client_reference` is `<token>.<role>`, the checkout session or
 * payout id its `providerReference`), with what moved on the customer's wallet, Wave's fee, and
 * the wallet's running balance.
 */

const running: RunningWaveSimulator[] = []
after(() => Promise.all(running.map((simulator) => simulator.close())))

async function connected(options: WaveSimulatorOptions = {}) {
  const simulator = await startWaveSimulator({ settleDelayMs: 20, ...options })
  running.push(simulator)
  const [connection] = connectionsOf([simulator.connection('wave', ['SN'])])
  return { simulator, adapter: connection!.adapter }
}

const control = async (simulator: RunningWaveSimulator, path: string, body: unknown) => {
  const answer = await fetch(`${simulator.url}/_simulator/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  assert.ok(answer.ok, `${path}: ${answer.status} ${await answer.text()}`)
}

/** The UTC day of `date` as a window, in microseconds. */
const dayWindow = (date: string) => {
  const startMs = Date.parse(`${date}T00:00:00Z`)
  return { startAtUs: startMs * 1000, endAtUs: (startMs + 86_400_000) * 1000 }
}

/** From the start of today (UTC) to a minute from now: the current day so far. */
const todaySoFar = () => ({
  startAtUs: Date.parse(`${new Date().toISOString().slice(0, 10)}T00:00:00Z`) * 1000,
  endAtUs: (Date.now() + 60_000) * 1000,
})

async function statementOf(adapter: ProviderAdapter, window: { startAtUs: number; endAtUs: number }) {
  const read = await adapter.statement!({ window })
  assert.ok(read.ok, read.ok ? '' : read.reason)
  return read.value
}

/** opening + what the lines moved + what was left out = closing, for each account. */
function balancesAddUp(statement: OperatorStatement): boolean {
  return statement.accounts.every((account) => {
    const moved = statement.lines
      .filter((line) => line.account === account.account)
      .reduce((sum, line) => sum + line.balanceEffectMinor, 0)
    return account.openingBalanceMinor! + moved + account.excludedEffectMinor === account.closingBalanceMinor
  })
}

let shop: Awaited<ReturnType<typeof connected>>
before(async () => {
  shop = await connected({ openingBalance: '200000', checkoutFeePercent: 1, autoPay: false })
})

test('the balance is the wallet’s, and a payout through the adapter takes its amount and Wave’s fee', async () => {
  const opened = await shop.adapter.balance!()
  assert.ok(opened.ok, opened.ok ? '' : opened.reason)
  assert.deepEqual(opened.value, [
    { account: 'wallet', currency: 'XOF', balanceMinor: 200_000, raw: { amount: '200000', currency: 'XOF' } },
  ])
  const payout = sideRequest({
    direction: 'cash-out',
    channel: 'wave',
    country: 'SN',
    amountMinor: 3000,
    phoneNumber: '+221770000020',
  })
  assert.equal((await shop.adapter.initiate(payout, Date.now() * 1000)).status, 'succeeded')
  const moved = await shop.adapter.balance!()
  assert.ok(moved.ok)
  assert.equal(moved.value[0]!.balanceMinor, 200_000 - 3000 - 30)
})

test('each transaction of the window is a line naming its side as Sika stores it, with the customer’s amount and Wave’s fee', async () => {
  const nowUs = Date.now() * 1000
  const collect = sideRequest({
    direction: 'cash-in',
    channel: 'wave',
    country: 'SN',
    amountMinor: 5000,
    phoneNumber: '+221770000021',
  })
  const started = await shop.adapter.initiate(collect, nowUs)
  assert.equal(started.status, 'pending')
  const sessionId = started.providerReference!
  await control(shop.simulator, `sessions/${sessionId}/pay`, { mobile: '+221770000021' })
  const payout = sideRequest({
    direction: 'cash-out',
    channel: 'wave',
    country: 'SN',
    amountMinor: 2000,
    phoneNumber: '+221770000022',
  })
  const paid = await shop.adapter.initiate(payout, nowUs)
  assert.equal(paid.status, 'succeeded')

  const statement = await statementOf(shop.adapter, todaySoFar())
  const lineOf = (token: string) => statement.lines.find((line) => line.references.side?.token === token)
  const { raw: collectRaw, atUs: collectAt, lineId: collectId, ...collected } = lineOf(collect.token)!
  assert.deepEqual(collected, {
    account: 'wallet',
    kind: 'payment',
    references: { side: { token: collect.token, role: 'main' }, providerReference: sessionId },
    direction: 'cash-in',
    amountMinor: 5000,
    feeMinor: 50,
    balanceEffectMinor: 4950,
    currency: 'XOF',
    status: 'succeeded',
    balanceAfterMinor: collected.balanceAfterMinor,
  })
  assert.equal(collectRaw.checkout_api_session_id, sessionId)
  assert.ok(Math.abs(collectAt / 1000 - Date.now()) < 60_000)
  assert.match(collectId, /^T/)
  const { raw, atUs, ...paidOut } = lineOf(payout.token)!
  assert.deepEqual(paidOut, {
    account: 'wallet',
    lineId: paid.providerReference,
    kind: 'payment',
    references: { side: { token: payout.token, role: 'main' }, providerReference: paid.providerReference },
    direction: 'cash-out',
    amountMinor: 2000,
    feeMinor: 20,
    balanceEffectMinor: -2020,
    currency: 'XOF',
    status: 'succeeded',
    balanceAfterMinor: paidOut.balanceAfterMinor,
  })
  assert.ok(balancesAddUp(statement), 'opening + lines = closing')
  const balance = await shop.adapter.balance!()
  assert.ok(balance.ok)
  assert.equal(statement.accounts[0]!.closingBalanceMinor, balance.value[0]!.balanceMinor)
  assert.ok(
    statement.files.length >= 1 &&
      statement.files.every((file) => file.contentType.startsWith('application/json')),
  )
  assert.deepEqual(statement.unreadableLines, [])
})

test('Wave’s pages are followed to the end, and a window off UTC days reads both days it touches', async () => {
  const paged = await connected({ transactionsPageSize: 7, openingBalance: '0' })
  await control(paged.simulator, 'books/seed', { count: 50, date: '2026-02-10' })
  await control(paged.simulator, 'books/seed', { count: 24, date: '2026-02-11' })
  const day = await statementOf(paged.adapter, dayWindow('2026-02-10'))
  assert.equal(day.lines.length, 50)
  assert.equal(day.files.length, 8, '50 lines in pages of 7')
  assert.deepEqual(day.files.map((file) => file.name).slice(0, 2), [
    'transactions-2026-02-10-page-1.json',
    'transactions-2026-02-10-page-2.json',
  ])
  assert.equal(new Set(day.lines.map((line) => line.lineId)).size, 50)
  assert.ok(day.lines.every((line) => line.references.side?.token.startsWith('seed')))
  assert.deepEqual(
    day.accounts.map((account) => account.openingBalanceMinor),
    [0],
  )
  assert.ok(balancesAddUp(day))

  // A day in UTC+1 (RECONCILIATION_TIMEZONE): 2026-02-10 23:00Z to 2026-02-11 23:00Z.
  const shifted = await statementOf(paged.adapter, {
    startAtUs: Date.parse('2026-02-10T23:00:00Z') * 1000,
    endAtUs: Date.parse('2026-02-11T23:00:00Z') * 1000,
  })
  const inWindow = (line: OperatorLine) => line.atUs >= Date.parse('2026-02-10T23:00:00Z') * 1000
  assert.ok(shifted.lines.every(inWindow))
  assert.equal(
    shifted.lines.length,
    2 + 23,
    'the last hour of the 10th (2 of its 50 lines) and 23 of the 11th’s 24 hourly lines',
  )
  assert.equal(shifted.files.length, 8 + 4)
  assert.ok(balancesAddUp(shifted))
})

test('a day of 100,000 transactions is read through the adapter in a few seconds', async () => {
  const busy = await connected({ openingBalance: '0' })
  await control(busy.simulator, 'books/seed', { count: 100_000, date: '2026-02-12' })
  const startedAt = performance.now()
  const statement = await statementOf(busy.adapter, dayWindow('2026-02-12'))
  const elapsedMs = performance.now() - startedAt
  console.log(
    `Wave: 100,000 transactions in ${statement.files.length} pages read and normalized in ${Math.round(elapsedMs)} ms`,
  )
  assert.equal(statement.lines.length, 100_000)
  assert.equal(new Set(statement.lines.map((line) => line.lineId)).size, 100_000)
  assert.ok(balancesAddUp(statement))
})

test('each break made at Wave shows in the statement as the reconciliation will see it', async () => {
  const books = await connected({ openingBalance: '10000', checkoutFeePercent: 1 })
  const nowUs = Date.now() * 1000
  const payout = sideRequest({
    direction: 'cash-out',
    channel: 'wave',
    country: 'SN',
    amountMinor: 1000,
    phoneNumber: '+221770000023',
  })
  const paid = await books.adapter.initiate(payout, nowUs)
  const other = sideRequest({
    direction: 'cash-out',
    channel: 'wave',
    country: 'SN',
    amountMinor: 400,
    phoneNumber: '+221770000024',
  })
  const otherPaid = await books.adapter.initiate(other, nowUs)
  await control(books.simulator, 'books/breaks', { kind: 'unknown-line', amount: '700' })
  await control(books.simulator, 'books/breaks', { kind: 'duplicate', payment: paid.providerReference })
  await control(books.simulator, 'books/breaks', {
    kind: 'missing-line',
    payment: otherPaid.providerReference,
  })
  await control(books.simulator, 'books/breaks', { kind: 'balance-drift', amount: '100', direction: 'out' })

  const statement = await statementOf(books.adapter, todaySoFar())
  const ofPayout = statement.lines.filter((line) => line.references.side?.token === payout.token)
  assert.equal(ofPayout.length, 2, 'a duplicate: two lines for one side')
  assert.equal(ofPayout[1]!.amountMinor, 1000)
  assert.notEqual(ofPayout[0]!.lineId, ofPayout[1]!.lineId)
  assert.deepEqual(
    statement.lines.filter((line) => line.references.side?.token === other.token),
    [],
    'a missing line',
  )
  const stranger = statement.lines.filter((line) => line.references.side === undefined)
  assert.deepEqual(
    stranger.map(({ kind, direction, amountMinor, feeMinor }) => ({
      kind,
      direction,
      amountMinor,
      feeMinor,
    })),
    [{ kind: 'payment', direction: 'cash-in', amountMinor: 700, feeMinor: 7 }],
    'money Wave moved for a reference Sika never gave',
  )
  const balance = await books.adapter.balance!()
  assert.ok(balance.ok)
  const closing = statement.accounts[0]!.closingBalanceMinor
  assert.equal(
    closing! - balance.value[0]!.balanceMinor,
    100,
    'the balance API is not what the lines close on',
  )
})

test('a read Wave refuses fails with a reason naming the call, never the key', async () => {
  const revoked = await connected()
  await control(revoked.simulator, 'revoke-api-key', {})
  const statement = await revoked.adapter.statement!({ window: dayWindow('2026-02-13') })
  assert.deepEqual(statement, {
    ok: false,
    reason: 'Wave answered HTTP 401 api-key-revoked to GET /v1/transactions?date=2026-02-13.',
  })
  const balance = await revoked.adapter.balance!()
  assert.deepEqual(balance, {
    ok: false,
    reason: 'Wave answered HTTP 401 api-key-revoked to GET /v1/balance.',
  })
  assert.ok(!JSON.stringify([statement, balance]).includes(revoked.simulator.apiKey))
})
