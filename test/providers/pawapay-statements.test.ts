import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { createPawapayAdapter } from '../../src/providers/pawapay/pawapay-adapter.ts'
import type { OperatorStatement, ProviderAdapter } from '../../src/providers/provider.ts'
import {
  type PawapaySimulatorOptions,
  type RunningPawapaySimulator,
  startPawapaySimulator,
} from '../../src/simulators/pawapay/pawapay-simulator.ts'
import { connectionsOf, sideRequest } from '../support/operator-connections.ts'
import { type Receiver, startReceiver } from '../support/receiver.ts'
import { pollUntilDefined, waitFor } from '../support/wait.ts'

/**
 * CONTRACT.md, Reconciliation and Platform console: pawaPay's wallet balances
 * (`GET /v2/wallet-balances`) and its statements (`POST /v2/statements`, waited for until
 * COMPLETED, its CSV downloaded from `downloadUrl`, gzip when asked), read through the adapter
 * against the pawaPay simulator as a real server. Each line names its side as Sika stores it
 * (the depositId, payoutId or refundId is the side's operator reference), and the wallet's
 * opening and closing balances come from its running balance. Moov Money in Benin (MOOV_BEN).
 */

const running: RunningPawapaySimulator[] = []
let sika: Receiver
before(async () => {
  sika = await startReceiver()
})
after(async () => {
  await Promise.all(running.map((simulator) => simulator.close()))
  await sika.close()
})

/** A simulator and the adapter Sika builds from its OPERATORS_FILE entry; Sika's PUBLIC_BASE_URL is a receiver. */
async function connected(options: PawapaySimulatorOptions = {}) {
  const simulator = await startPawapaySimulator({ settleDelayMs: 20, statementDelayMs: 30, ...options })
  running.push(simulator)
  const [connection] = connectionsOf([simulator.connection('moov-money', ['BJ'])], sika.origin)
  return { simulator, adapter: connection!.adapter }
}

const control = async (simulator: RunningPawapaySimulator, path: string, body?: unknown) => {
  const answer = await fetch(`${simulator.url}/_simulator/${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  const text = await answer.text()
  assert.ok(answer.ok, `${path}: ${answer.status} ${text}`)
  return JSON.parse(text)
}

const dayWindow = (date: string) => {
  const startMs = Date.parse(`${date}T00:00:00Z`)
  return { startAtUs: startMs * 1000, endAtUs: (startMs + 86_400_000) * 1000 }
}

const todaySoFar = () => ({
  startAtUs: Date.parse(`${new Date().toISOString().slice(0, 10)}T00:00:00Z`) * 1000,
  endAtUs: (Date.now() + 60_000) * 1000,
})

async function statementOf(adapter: ProviderAdapter, window: { startAtUs: number; endAtUs: number }) {
  const read = await adapter.statement!({ window, waitMs: 10_000 })
  assert.ok(read.ok, read.ok ? '' : read.reason)
  return read.value
}

function balancesAddUp(statement: OperatorStatement): boolean {
  return statement.accounts.every((account) => {
    const moved = statement.lines
      .filter((line) => line.account === account.account)
      .reduce((sum, line) => sum + line.balanceEffectMinor, 0)
    return account.openingBalanceMinor! + moved + account.excludedEffectMinor === account.closingBalanceMinor
  })
}

const benin = (direction: 'cash-in' | 'cash-out', amountMinor: number, ending = '000') =>
  sideRequest({
    direction,
    channel: 'moov-money',
    country: 'BJ',
    amountMinor,
    phoneNumber: `+2290197000${ending}`,
  })

test('the balance is the Benin wallet’s, moved by a deposit through the adapter less pawaPay’s fee', async () => {
  const { simulator, adapter } = await connected({ walletOpeningBalance: '250000', feePercent: 1 })
  const opened = await adapter.balance!()
  assert.ok(opened.ok, opened.ok ? '' : opened.reason)
  assert.deepEqual(opened.value, [
    {
      account: 'BEN/XOF',
      currency: 'XOF',
      balanceMinor: 250_000,
      raw: { country: 'BEN', balance: '250000.00', currency: 'XOF', provider: '' },
    },
  ])
  await adapter.initiate(benin('cash-in', 10_000), Date.now() * 1000)
  await waitFor('the deposit completed', () =>
    simulator.transactions().every((payment) => payment.status === 'COMPLETED'),
  )
  const moved = await adapter.balance!()
  assert.ok(moved.ok)
  assert.equal(moved.value[0]!.balanceMinor, 250_000 + 10_000 - 100)
})

test('the statement is waited for, downloaded and read: each line names its side as Sika stores it', async () => {
  const { simulator, adapter } = await connected({ feePercent: 1 })
  const nowUs = Date.now() * 1000
  const deposit = benin('cash-in', 5000)
  const payout = benin('cash-out', 2000)
  const declined = benin('cash-in', 3000, '101')
  for (const request of [deposit, payout, declined]) await adapter.initiate(request, nowUs)
  await waitFor('three payments ended', () =>
    simulator.transactions().every((payment) => ['COMPLETED', 'FAILED'].includes(payment.status)),
  )
  const depositAt = (await adapter.pollStatus(deposit, nowUs)).providerReference
  const refund = {
    ...benin('cash-in', 1000),
    refund: { operatorReference: deposit.operatorReference, paidAmountMinor: 5000 },
  }
  await adapter.initiate(refund, nowUs)
  await waitFor('the refund completed', () =>
    simulator.transactions().every((payment) => ['COMPLETED', 'FAILED'].includes(payment.status)),
  )

  const statement = await statementOf(adapter, todaySoFar())
  const lineOf = (request: { operatorReference?: string }) =>
    statement.lines.find((line) => line.references.operatorReference === request.operatorReference)
  const { raw, atUs, ...collected } = lineOf(deposit)!
  assert.deepEqual(collected, {
    account: 'BEN/XOF',
    lineId: deposit.operatorReference,
    kind: 'payment',
    references: {
      operatorReference: deposit.operatorReference,
      providerReference: depositAt,
      side: { token: deposit.token, role: 'main' },
    },
    direction: 'cash-in',
    amountMinor: 5000,
    feeMinor: 50,
    balanceEffectMinor: 4950,
    currency: 'XOF',
    status: 'succeeded',
    balanceAfterMinor: collected.balanceAfterMinor,
  })
  assert.equal(raw.MNO, 'MOOV_BEN')
  assert.deepEqual(
    [payout, declined, refund].map((request) => {
      const line = lineOf(request)!
      return [line.direction, line.amountMinor, line.feeMinor, line.balanceEffectMinor, line.status]
    }),
    [
      ['cash-out', 2000, 20, -2020, 'succeeded'],
      ['cash-in', 3000, 30, 0, 'failed'],
      ['cash-out', 1000, 10, -1010, 'succeeded'],
    ],
  )
  assert.ok(balancesAddUp(statement))
  const balance = await adapter.balance!()
  assert.ok(balance.ok)
  assert.equal(statement.accounts[0]!.closingBalanceMinor, balance.value[0]!.balanceMinor)
  assert.equal(statement.files.length, 1)
  assert.match(statement.files[0]!.name, /^[0-9a-f-]{36}\.csv\.gz$/)
  assert.deepEqual([...statement.files[0]!.bytes.subarray(0, 2)], [0x1f, 0x8b], 'the file as received: gzip')
  const callback = await pollUntilDefined(
    () =>
      sika
        .requestsTo('/providers/pawapay/notifications')
        .find((request) => request.body.includes('"statementId"')),
    'the statement callback at Sika’s notifications route',
  )
  assert.equal(JSON.parse(callback.body).status, 'COMPLETED')
})

test('a statement asked as plain CSV is read alike; another provider’s lines on the shared wallet are left out and counted', async () => {
  const { simulator } = await connected()
  const adapter = createPawapayAdapter({
    baseUrl: simulator.url,
    apiToken: simulator.apiToken,
    providers: { BJ: 'MOOV_BEN' },
    notificationUrl: `${sika.origin}/providers/pawapay/notifications`,
    compressedStatements: false,
  })
  await control(simulator, 'books/seed', {
    count: 10,
    date: '2026-02-20',
    account: 'BEN/XOF',
    provider: 'MOOV_BEN',
  })
  await control(simulator, 'books/seed', {
    count: 6,
    date: '2026-02-20',
    account: 'BEN/XOF',
    provider: 'MTN_MOMO_BEN',
  })
  const statement = await statementOf(adapter, dayWindow('2026-02-20'))
  assert.equal(statement.files[0]!.contentType, 'text/csv')
  assert.match(statement.files[0]!.name, /\.csv$/)
  assert.equal(statement.lines.length, 10)
  assert.ok(statement.lines.every((line) => line.raw.MNO === 'MOOV_BEN'))
  const [account] = statement.accounts
  // The six MTN lines: 100 in, 101 out, 102 in, 103 out, 104 in, 105 out.
  assert.equal(account!.excludedEffectMinor, -3)
  assert.ok(balancesAddUp(statement))
  assert.deepEqual(
    statement.lines.slice(0, 2).map((line) => line.references.side),
    [
      { token: 'seed0', role: 'main' },
      { token: 'seed1', role: 'main' },
    ],
  )
})

test('a day of 100,000 statement lines is generated, downloaded, gunzipped and read in a few seconds', async () => {
  const { simulator, adapter } = await connected({ walletOpeningBalance: '0' })
  await control(simulator, 'books/seed', {
    count: 100_000,
    date: '2026-02-21',
    account: 'BEN/XOF',
    provider: 'MOOV_BEN',
  })
  const startedAt = performance.now()
  const statement = await statementOf(adapter, dayWindow('2026-02-21'))
  const elapsedMs = performance.now() - startedAt
  console.log(
    `pawaPay: 100,000 lines (${Math.round(statement.files[0]!.bytes.length / 1024)} KiB gzip) asked, waited for, downloaded and read in ${Math.round(elapsedMs)} ms`,
  )
  assert.equal(statement.lines.length, 100_000)
  assert.equal(new Set(statement.lines.map((line) => line.lineId)).size, 100_000)
  assert.ok(balancesAddUp(statement))
})

test('a statement that never completes fails within the bound, saying so; one pawaPay fails says why', async () => {
  const { simulator, adapter } = await connected()
  simulator.holdStatements(true)
  const startedAt = Date.now()
  const never = await adapter.statement!({ window: dayWindow('2026-02-22'), waitMs: 1500 })
  const elapsedMs = Date.now() - startedAt
  assert.equal(never.ok, false)
  assert.match(
    never.ok ? '' : never.reason,
    /^pawaPay's statement [0-9a-f-]{36} of BEN\/XOF did not complete within 2 s \(still PROCESSING\)\.$/,
  )
  assert.ok(elapsedMs >= 1400 && elapsedMs < 4000, `gave up after ${elapsedMs} ms`)

  const failing = adapter.statement!({ window: dayWindow('2026-02-22'), waitMs: 10_000 })
  const [held] = await pollUntilDefined(async () => {
    const processing = (await control(simulator, 'statements')).filter(
      (statement: { status: string }) => statement.status === 'PROCESSING',
    )
    return processing.length === 2 ? processing.slice(1) : undefined
  }, 'the second statement asked')
  await control(simulator, `statements/${held.statementId}/status`, { status: 'FAILED' })
  assert.deepEqual(await failing, {
    ok: false,
    reason: `pawaPay's statement ${held.statementId} of BEN/XOF FAILED (UNKNOWN_ERROR: Unable to process request due to an unknown problem.).`,
  })

  const stopper = new AbortController()
  const stopped = adapter.statement!({ window: dayWindow('2026-02-22'), signal: stopper.signal })
  setTimeout(() => stopper.abort(), 300)
  const read = await stopped
  assert.match(read.ok ? '' : read.reason, /^The wait for pawaPay's statement .* was stopped\.$/)
  simulator.holdStatements(false)
})

test('each break made at pawaPay shows in the statement as the reconciliation will see it', async () => {
  const { simulator, adapter } = await connected()
  const nowUs = Date.now() * 1000
  const kept = benin('cash-in', 1000)
  const dropped = benin('cash-in', 2000)
  for (const request of [kept, dropped]) await adapter.initiate(request, nowUs)
  await waitFor('both deposits completed', () =>
    simulator.transactions().every((payment) => payment.status === 'COMPLETED'),
  )
  for (const body of [
    { kind: 'duplicate', payment: kept.operatorReference },
    { kind: 'missing-line', payment: dropped.operatorReference },
    { kind: 'balance-drift', account: 'BEN/XOF', amount: '50', direction: 'out' },
    { kind: 'unknown-line', account: 'BEN/XOF', amount: '700', provider: 'MOOV_BEN' },
  ])
    await control(simulator, 'books/breaks', body)
  const statement = await statementOf(adapter, todaySoFar())
  const ofKept = statement.lines.filter(
    (line) => line.references.operatorReference === kept.operatorReference,
  )
  assert.deepEqual(
    ofKept.map((line) => line.lineId),
    [kept.operatorReference, `${kept.operatorReference}#2`],
    'a duplicate: one id listed twice, each line its own identity',
  )
  assert.deepEqual(
    statement.lines.filter((line) => line.references.operatorReference === dropped.operatorReference),
    [],
  )
  assert.deepEqual(
    statement.lines.filter((line) => line.references.side === undefined).map((line) => line.amountMinor),
    [700],
    'money moved for a reference Sika never gave',
  )
  const [account] = statement.accounts
  const moved = statement.lines.reduce((sum, line) => sum + line.balanceEffectMinor, 0)
  assert.equal(
    account!.openingBalanceMinor! + moved - account!.closingBalanceMinor!,
    50,
    'the lines do not add up',
  )
})

test('a read pawaPay refuses fails with a reason naming the call, never the token', async () => {
  const { simulator, adapter } = await connected()
  const revoked = simulator.apiToken
  simulator.expireAccessTokens()
  const balance = await adapter.balance!()
  assert.deepEqual(balance, {
    ok: false,
    reason:
      'pawaPay answered HTTP 401 (AUTHENTICATION_ERROR: The API token in the request is invalid.) to GET /v2/wallet-balances.',
  })
  const statement = await adapter.statement!({ window: dayWindow('2026-02-23') })
  assert.equal(statement.ok, false)
  assert.ok(!JSON.stringify([balance, statement]).includes(revoked))
  const tooLong = await adapter.statement!({ window: { startAtUs: 0, endAtUs: 40 * 86_400_000_000 } })
  assert.deepEqual(tooLong, {
    ok: false,
    reason: 'A pawaPay statement covers at most 31 days, and its end comes after its start.',
  })
})
