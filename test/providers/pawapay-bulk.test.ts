import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, test } from 'node:test'
import { createPawapayAdapter } from '../../src/providers/pawapay/pawapay-adapter.ts'
import type { ProviderAdapter, ProviderOutcome, ProviderRequest } from '../../src/providers/provider.ts'
import {
  type RunningPawapaySimulator,
  startPawapaySimulator,
} from '../../src/simulators/pawapay/pawapay-simulator.ts'
import { pollUntilDefined } from '../support/wait.ts'

/**
 * The pawaPay adapter's bulk payouts and queued-payout cancel (issue 45), against the pawaPay
 * simulator as a real server on 127.0.0.1: POST /v2/payouts/bulk in requests of at most 20,
 * DUPLICATE_IGNORED on a repeat, REJECTED items among accepted ones, no answer leaving every
 * payout pending, and POST /v2/payouts/fail-enqueued on ENQUEUED and COMPLETED payouts. Moov Money
 * in Benin (MOOV_BEN), 10-digit numbers whose last three digits pick the simulator's outcome.
 */

let simulator: RunningPawapaySimulator
let adapter: ProviderAdapter

const adapterAt = (baseUrl: string, apiToken = simulator.apiToken) =>
  createPawapayAdapter({
    baseUrl,
    apiToken,
    providers: { BJ: 'MOOV_BEN' },
    notificationUrl: 'http://127.0.0.1:9/providers/pawapay/notifications',
  })

const nowUs = () => Date.now() * 1000

/** A cash-out side as the batch worker hands it over: its payoutId fixed before the first call. */
function payout(ending = '000', overrides: Partial<ProviderRequest> = {}): ProviderRequest {
  return {
    token: `dsb_${randomUUID().replaceAll('-', '')}`,
    role: 'main',
    mode: 'live',
    direction: 'cash-out',
    channel: 'moov-money',
    country: 'BJ',
    currency: 'XOF',
    amountMinor: 5000,
    phoneNumber: `+2290197000${ending}`,
    operatorReference: randomUUID(),
    submittedAtUs: nowUs(),
    ...overrides,
  }
}

/** The bulks the simulator received from now on. */
function bulksFromNow() {
  const seen = simulator.bulkRequests().length
  return () => simulator.bulkRequests().slice(seen)
}

/** The request's payout as pawaPay reports it once final, through the adapter's status check. */
const finalOutcome = (request: ProviderRequest) =>
  pollUntilDefined(
    async () => {
      const outcome = await adapter.pollStatus(request, nowUs())
      return outcome.status === 'pending' ? undefined : outcome
    },
    `a final status of ${request.operatorReference}`,
    5000,
  )

/** How many payouts pawaPay holds for each of Sika's sides (clientReferenceId `<token>.<role>`). */
function payoutsPerSide(): Map<string, number> {
  const counts = new Map<string, number>()
  for (const payment of simulator.transactions()) {
    if (payment.operation !== 'payout') continue
    const reference = String(payment.view.clientReferenceId)
    counts.set(reference, (counts.get(reference) ?? 0) + 1)
  }
  return counts
}

const assertPending = (outcome: ProviderOutcome | undefined, what: string) => {
  assert.equal(outcome?.status, 'pending', `${what}: ${JSON.stringify(outcome)}`)
  assert.ok(outcome.status === 'pending' && (outcome.pollAfterMs ?? 0) > 0, `${what} is polled`)
}

function assertAllPending(outcomes: readonly ProviderOutcome[], what: string) {
  for (const [index, outcome] of outcomes.entries()) assertPending(outcome, `${what} ${index}`)
}

before(async () => {
  simulator = await startPawapaySimulator({ settleDelayMs: 40, hangMs: 300 })
  adapter = adapterAt(simulator.url)
})
after(() => simulator?.close())

test('the adapter declares pawaPay’s published bulk limit', () => {
  assert.equal(adapter.largestBulk, 20)
  assert.equal(typeof adapter.initiateMany, 'function')
  assert.equal(typeof adapter.cancelQueued, 'function')
})

test('45 payouts go in requests of at most 20, each accepted once, and all complete', async () => {
  const bulks = bulksFromNow()
  const requests = Array.from({ length: 45 }, () => payout())
  const outcomes = await adapter.initiateMany!(requests, nowUs())
  assert.equal(outcomes.length, 45)
  assertAllPending(outcomes, 'payout')
  const sizes = bulks().map((bulk) => bulk.size)
  assert.deepEqual(sizes, [20, 20, 5])
  const single = simulator.requests.filter(
    (request) => request.method === 'POST' && request.url === '/v2/payouts',
  )
  assert.equal(single.length, 0, 'no payout went alone')
  const ids = new Set(requests.map((request) => request.operatorReference))
  const accepted = simulator.acceptances().filter((entry) => ids.has(entry.id))
  assert.equal(accepted.length, 45)
  assert.ok(accepted.every((entry) => entry.accepted === 1 && entry.duplicatesIgnored === 0))
  for (const request of requests) assert.equal((await finalOutcome(request)).status, 'succeeded')
})

test('a repeated bulk is DUPLICATE_IGNORED: it stays pending and pays nothing twice', async () => {
  const requests = Array.from({ length: 20 }, () => payout())
  const bulks = bulksFromNow()
  await adapter.initiateMany!(requests, nowUs())
  for (const request of requests.slice(0, 5)) assert.equal((await finalOutcome(request)).status, 'succeeded')
  const again = await adapter.initiateMany!(requests, nowUs())
  assertAllPending(again, 'repeated payout')
  assert.deepEqual(
    bulks().map((bulk) => bulk.size),
    [20, 20],
  )
  const ids = new Set(requests.map((request) => request.operatorReference))
  const seen = simulator.acceptances().filter((entry) => ids.has(entry.id))
  assert.equal(seen.length, 20)
  assert.ok(seen.every((entry) => entry.accepted === 1 && entry.duplicatesIgnored === 1))
  const perSide = payoutsPerSide()
  for (const request of requests) assert.equal(perSide.get(`${request.token}.main`), 1)
  for (const request of requests) assert.equal((await finalOutcome(request)).status, 'succeeded')
})

test('a REJECTED payout among accepted ones ends as the single payout path ends it', async () => {
  const tooLarge = { amountMinor: 20_000_000 }
  const requests = [payout(), payout('000', tooLarge), payout()]
  const outcomes = await adapter.initiateMany!(requests, nowUs())
  const alone = await adapter.initiate(payout('000', tooLarge), nowUs())
  assert.equal(alone.status, 'error')
  assert.deepEqual(outcomes[1], alone)
  assert.equal(outcomes[1]?.status === 'error' && outcomes[1].reason.code, 'pawapay_amount_out_of_bounds')
  assertPending(outcomes[0], 'first payout')
  assertPending(outcomes[2], 'last payout')
  assert.equal((await finalOutcome(requests[0]!)).status, 'succeeded')
  assert.equal((await finalOutcome(requests[2]!)).status, 'succeeded')
  const rejected = await adapter.pollStatus(requests[1]!, nowUs())
  assert.equal(rejected.status, 'pending', 'pawaPay holds nothing for the rejected payout (NOT_FOUND)')
  assert.equal(rejected.fromOperatorRecord, undefined)
})

test('a payout of the wrong shape makes pawaPay refuse the bulk: each payout goes alone', async () => {
  const bulks = bulksFromNow()
  const requests = [payout(), payout('000', { statementDescriptor: 'Prime n°7!' }), payout()]
  const outcomes = await adapter.initiateMany!(requests, nowUs())
  assert.deepEqual(
    bulks().map((bulk) => bulk.size),
    [3],
  )
  assert.equal(outcomes[1]?.status, 'error')
  assert.equal(outcomes[1]?.status === 'error' && outcomes[1].reason.code, 'pawapay_invalid_parameter')
  assertPending(outcomes[0], 'first payout')
  assertPending(outcomes[2], 'last payout')
  assert.equal((await finalOutcome(requests[0]!)).status, 'succeeded')
  assert.equal((await finalOutcome(requests[2]!)).status, 'succeeded')
})

test('no answer leaves every payout pending, as money may have moved', async () => {
  // A port that accepts connections and closes them without a word.
  const silent = createServer((request) => request.socket.destroy())
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
  const { port } = silent.address() as AddressInfo
  try {
    const requests = [payout(), payout(), payout()]
    const outcomes = await adapterAt(`http://127.0.0.1:${port}`).initiateMany!(requests, nowUs())
    assertAllPending(outcomes, 'payout')
  } finally {
    silent.closeAllConnections()
    await new Promise((resolve) => silent.close(resolve))
  }
})

test('a 5xx leaves every payout pending, and polling finds what pawaPay did with them', async () => {
  // 106 makes the simulator store the bulk's payouts and answer 500 UNKNOWN_ERROR.
  const requests = [payout(), payout('106'), payout('101')]
  const outcomes = await adapter.initiateMany!(requests, nowUs())
  assertAllPending(outcomes, 'payout')
  assert.equal((await finalOutcome(requests[0]!)).status, 'succeeded')
  assert.equal((await finalOutcome(requests[1]!)).status, 'succeeded')
  const declined = await finalOutcome(requests[2]!)
  assert.equal(declined.status === 'failed' && declined.reason.code, 'pawapay_wallet_limit_reached')
})

test('a revoked token ends every payout of the bulk: nothing was created', async () => {
  const requests = [payout(), payout()]
  const outcomes = await adapterAt(simulator.url, 'revoked-token').initiateMany!(requests, nowUs())
  for (const outcome of outcomes) {
    assert.equal(outcome.status === 'error' && outcome.reason.code, 'pawapay_authentication_error')
  }
  assert.equal((await adapter.pollStatus(requests[0]!, nowUs())).fromOperatorRecord, undefined)
})

test('fail-enqueued ends an ENQUEUED payout as canceled; a COMPLETED one is refused', async () => {
  simulator.holdPayouts(true)
  const [held, completing] = [payout(), payout()]
  try {
    const outcomes = await adapter.initiateMany!([held, completing], nowUs())
    assertAllPending(outcomes, 'payout')
    const status = await fetch(`${simulator.url}/v2/payouts/${held.operatorReference}`, {
      headers: { authorization: `Bearer ${simulator.apiToken}` },
    })
    assert.equal((await status.json()).data.status, 'ENQUEUED')
    assert.deepEqual(await adapter.cancelQueued!(held, nowUs()), { answer: 'accepted' })
    const canceled = await finalOutcome(held)
    assert.equal(canceled.status, 'canceled')
    assert.equal(canceled.status === 'canceled' && canceled.reason.code, 'pawapay_manually_cancelled')
    assert.equal(canceled.fromOperatorRecord, true)
    const twice = await adapter.cancelQueued!(held, nowUs())
    assert.equal(twice.answer, 'refused')
    assert.match(twice.answer === 'refused' ? twice.reason : '', /INVALID_STATE.*FAILED/)
  } finally {
    simulator.holdPayouts(false)
  }
  assert.equal((await finalOutcome(completing)).status, 'succeeded')
  const refused = await adapter.cancelQueued!(completing, nowUs())
  assert.equal(refused.answer, 'refused')
  assert.match(refused.answer === 'refused' ? refused.reason : '', /INVALID_STATE.*COMPLETED/)
  assert.equal((await finalOutcome(completing)).status, 'succeeded', 'the refusal changed nothing')
  const stranger = await adapter.cancelQueued!(payout(), nowUs())
  assert.match(stranger.answer === 'refused' ? stranger.reason : '', /NOT_FOUND/)
})

test('a cancel that gets no answer is unknown', async () => {
  const closed = createServer()
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
  const { port } = closed.address() as AddressInfo
  await new Promise((resolve) => closed.close(resolve))
  assert.deepEqual(await adapterAt(`http://127.0.0.1:${port}`).cancelQueued!(payout(), nowUs()), {
    answer: 'unknown',
  })
})
