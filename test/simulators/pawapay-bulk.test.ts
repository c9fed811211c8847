import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, test } from 'node:test'
import {
  type RunningPawapaySimulator,
  startPawapaySimulator,
} from '../../src/simulators/pawapay/pawapay-simulator.ts'
import { type Receiver, startReceiver } from '../support/receiver.ts'
import { pollUntilDefined, sleep } from '../support/wait.ts'

// The pawaPay simulator's bulk payouts and cancel of an enqueued payout, driven as a client of
// pawaPay's published v2 API would drive them (docs.pawapay.io/v2/api-reference/payouts/
// initiate-bulk-payout and cancel-enqueued-payout), with the control paths a test uses to hold
// payouts ENQUEUED and to count what was received.

const settleDelayMs = 40

let simulator: RunningPawapaySimulator
let listener: Receiver

/** A tiny client written from pawaPay's v2 API reference, not shared with anything else. */
async function call(method: string, path: string, body?: unknown, token: string | null = simulator.apiToken) {
  const headers: Record<string, string> = token === null ? {} : { Authorization: `Bearer ${token}` }
  if (body !== undefined) headers['content-type'] = 'application/json'
  const response = await fetch(`${simulator.url}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  })
  const text = await response.text()
  return { status: response.status, json: text === '' ? undefined : JSON.parse(text) }
}

function payoutBody(overrides: Record<string, unknown> = {}) {
  return {
    payoutId: randomUUID(),
    amount: '2500',
    currency: 'XAF',
    recipient: { type: 'MMO', accountDetails: { phoneNumber: '237670000000', provider: 'MTN_MOMO_CMR' } },
    clientReferenceId: `ref-${randomUUID()}`,
    ...overrides,
  }
}

const statusOf = async (id: string) => (await call('GET', `/v2/payouts/${id}`)).json.data?.status

const finalStatus = (id: string) =>
  pollUntilDefined(async () => {
    const answer = await call('GET', `/v2/payouts/${id}`)
    return ['COMPLETED', 'FAILED'].includes(answer.json?.data?.status) ? answer.json.data : undefined
  }, `final status of payout ${id}`)

const control = async (method: string, path: string, body?: unknown) => {
  const response = await fetch(`${simulator.url}/_simulator/${path}`, {
    method,
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  return { status: response.status, json: await response.json() }
}

before(async () => {
  listener = await startReceiver()
  simulator = await startPawapaySimulator({ settleDelayMs, payoutCallbackUrl: listener.url('/payouts') })
})

after(async () => {
  await simulator.close()
  await listener.close()
})

test('bulk: one answer per payout, in order, each ACCEPTED, REJECTED or DUPLICATE_IGNORED on its own', async () => {
  const first = payoutBody()
  const accepted = await call('POST', '/v2/payouts/bulk', [first])
  assert.equal(accepted.status, 200)
  const [answer] = accepted.json
  assert.deepEqual(Object.keys(answer), ['payoutId', 'status', 'created'])
  assert.equal(answer.status, 'ACCEPTED')
  const fresh = payoutBody()
  const tooLarge = payoutBody({ amount: '20000000' })
  const mixed = await call('POST', '/v2/payouts/bulk', [fresh, first, tooLarge])
  assert.equal(mixed.status, 200)
  assert.deepEqual(
    mixed.json.map((item: { payoutId: string; status: string }) => [item.payoutId, item.status]),
    [
      [fresh.payoutId, 'ACCEPTED'],
      [first.payoutId, 'DUPLICATE_IGNORED'],
      [tooLarge.payoutId, 'REJECTED'],
    ],
  )
  assert.equal(mixed.json[1].created, answer.created, 'a duplicate carries the original created')
  assert.deepEqual(Object.keys(mixed.json[2]), ['payoutId', 'status', 'failureReason'])
  assert.equal(mixed.json[2].failureReason.failureCode, 'AMOUNT_OUT_OF_BOUNDS')
  assert.equal((await call('GET', `/v2/payouts/${tooLarge.payoutId}`)).json.status, 'NOT_FOUND')
  assert.equal((await finalStatus(first.payoutId)).status, 'COMPLETED')
  assert.equal((await finalStatus(fresh.payoutId)).status, 'COMPLETED')
  // A callback per payout, once, as each reaches its final status.
  const about = (id: string) => listener.requests.filter((callback) => callback.body.includes(id))
  await pollUntilDefined(() => (about(fresh.payoutId).length === 1 ? true : undefined), 'the callback')
  assert.equal(about(first.payoutId).length, 1)
  const counted = (await control('GET', 'acceptances')).json.find(
    (entry: { id: string }) => entry.id === first.payoutId,
  )
  assert.deepEqual(counted, {
    operation: 'payout',
    id: first.payoutId,
    clientReferenceId: first.clientReferenceId,
    accepted: 1,
    duplicatesIgnored: 1,
  })
})

test('bulk: more than 20 payouts, a body that is no array, or one malformed payout is a 400 creating nothing', async () => {
  const before = (await control('GET', 'bulk-requests')).json.length
  const many = Array.from({ length: 21 }, () => payoutBody())
  const refused = await call('POST', '/v2/payouts/bulk', many)
  assert.equal(refused.status, 400)
  assert.equal(refused.json.failureReason.failureCode, 'INVALID_INPUT')
  assert.match(refused.json.failureReason.failureMessage, /at most 20/)
  assert.equal((await call('GET', `/v2/payouts/${many[0]!.payoutId}`)).json.status, 'NOT_FOUND')
  assert.equal((await call('POST', '/v2/payouts/bulk', payoutBody())).status, 400)
  const good = payoutBody()
  const malformed = await call('POST', '/v2/payouts/bulk', [good, payoutBody({ amount: 2500 })])
  assert.equal(malformed.status, 400)
  assert.equal(malformed.json.failureReason.failureCode, 'INVALID_PARAMETER')
  assert.match(malformed.json.failureReason.failureMessage, /^Payout \[1\]: .*'amount'/)
  assert.equal((await call('GET', `/v2/payouts/${good.payoutId}`)).json.status, 'NOT_FOUND')
  const twenty = await call(
    'POST',
    '/v2/payouts/bulk',
    Array.from({ length: 20 }, () => payoutBody()),
  )
  assert.equal(twenty.status, 200)
  assert.equal(twenty.json.length, 20)
  const sizes = (await control('GET', 'bulk-requests')).json
    .slice(before)
    .map((bulk: { size: number }) => bulk.size)
  assert.deepEqual(sizes, [21, 2, 20], 'every bulk received is counted, refused or not')
  const unauthorised = await call('POST', '/v2/payouts/bulk', [payoutBody()], 'wrong')
  assert.equal(unauthorised.status, 401)
  assert.equal(unauthorised.json.failureReason.failureCode, 'AUTHENTICATION_ERROR')
})

test('fail-enqueued: an ENQUEUED payout is ACCEPTED for cancel and ends FAILED MANUALLY_CANCELLED', async () => {
  assert.deepEqual((await control('POST', 'payout-queue', { hold: true })).json, { hold: true, enqueued: 0 })
  const held = payoutBody()
  const other = payoutBody()
  try {
    assert.equal((await call('POST', '/v2/payouts', held)).json.status, 'ACCEPTED')
    assert.equal((await call('POST', '/v2/payouts/bulk', [other])).json[0].status, 'ACCEPTED')
    await sleep(settleDelayMs * 3)
    assert.equal(await statusOf(held.payoutId), 'ENQUEUED', 'an enqueued payout waits')
    const cancel = await call('POST', `/v2/payouts/fail-enqueued/${held.payoutId}`)
    assert.equal(cancel.status, 200)
    assert.deepEqual(cancel.json, { payoutId: held.payoutId, status: 'ACCEPTED' })
    const failed = await finalStatus(held.payoutId)
    assert.equal(failed.status, 'FAILED')
    assert.equal(failed.failureReason.failureCode, 'MANUALLY_CANCELLED')
    const callback = await pollUntilDefined(
      () => listener.requests.find((request) => request.body.includes(held.payoutId)),
      'the cancel callback',
    )
    assert.equal(JSON.parse(callback.body).status, 'FAILED')
    const again = await call('POST', `/v2/payouts/fail-enqueued/${held.payoutId}`)
    assert.equal(again.json.status, 'REJECTED')
    assert.equal(again.json.failureReason.failureCode, 'INVALID_STATE')
  } finally {
    assert.deepEqual((await control('POST', 'payout-queue', { hold: false })).json, {
      hold: false,
      released: 1,
    })
  }
  assert.equal((await finalStatus(other.payoutId)).status, 'COMPLETED', 'a released payout settles')
  const late = await call('POST', `/v2/payouts/fail-enqueued/${other.payoutId}`)
  assert.equal(late.status, 200)
  assert.equal(late.json.status, 'REJECTED')
  assert.equal(late.json.failureReason.failureCode, 'INVALID_STATE')
  assert.equal(await statusOf(other.payoutId), 'COMPLETED', 'a refused cancel changes nothing')
  const unknown = randomUUID()
  const missing = await call('POST', `/v2/payouts/fail-enqueued/${unknown}`)
  assert.deepEqual(missing.json.status, 'REJECTED')
  assert.equal(missing.json.failureReason.failureCode, 'NOT_FOUND')
  assert.equal((await call('POST', `/v2/deposits/fail-enqueued/${unknown}`)).status, 404)
  assert.equal((await control('POST', 'payout-queue', { hold: 'yes' })).status, 400)
})
