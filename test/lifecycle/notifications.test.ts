import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { IssuedMerchant } from '../../src/app/merchants.ts'
import { type ApiClient, manualClock, startApp, type TestApp } from '../support/app.ts'
import { xofBalance } from '../support/ledger.ts'
import {
  postNotification,
  postSignedNotification,
  sandboxNotification,
  sandboxNotificationKey,
  sandboxSignature,
} from '../support/sandbox-notifications.ts'
import { transferBody } from '../support/sandbox-requests.ts'
import { describeEachStore } from '../support/stores.ts'

// POST /providers/sandbox/notifications: the sandbox operator tells us a side's outcome, signed
// with `sandbox-signature` (hex HMAC-SHA256 of the raw body). Only an authentic one changes anything.
const unusedCallback = 'http://127.0.0.1:9/unused'

const notificationOutcomes = [
  { wire: 'SUCCESSFUL', status: 'succeeded', failureCode: undefined },
  { wire: 'FAILED', status: 'failed', failureCode: 'insufficient_funds' },
  { wire: 'REJECTED', status: 'canceled', failureCode: 'customer_declined' },
  { wire: 'ERROR', status: 'error', failureCode: 'operator_unavailable' },
] as const

describeEachStore('sandbox provider notifications', (store) => {
  let app: TestApp
  let merchant: IssuedMerchant
  let client: ApiClient
  let key: Buffer
  let sequence = 0

  before(async () => {
    app = await startApp(store(), { clock: manualClock(Date.now() * 1000), workers: 'manual' })
    merchant = await app.createMerchant('Notified merchant')
    client = app.client(merchant.sandbox)
    key = sandboxNotificationKey(app)
  })
  after(() => app.close())

  const sign = (rawBody: string, withKey: Buffer = key) => sandboxSignature(rawBody, withKey)

  async function pending(kind: 'collect' | 'disbursement', ending = '905') {
    sequence++
    const response = await client.post(`/api/v1/${kind}`, {
      amount: 10_000,
      channel: 'orange-money',
      country: 'CI',
      customer: { phoneNumber: `+2250701${String(sequence).padStart(3, '0')}${ending}` },
      merchantReference: `notified-${sequence}`,
      callbackUrl: unusedCallback,
    })
    assert.equal(response.status, 200, response.text)
    const record = response.body.data[kind]
    assert.equal(record.status, 'pending')
    return record
  }

  /** The state a notification may change: the record, its events and its ledger entries. */
  async function snapshot(kind: string, token: string) {
    const details = await client.get(`/api/v1/${kind}/${token}`)
    const events = await client.get('/api/v1/events', { token, perPage: 100 })
    const transactions = await client.get('/api/v1/transaction', { perPage: 100 })
    return {
      record: details.body.data[kind],
      events: (events.body.data.events as any[]).map((event) => event.type),
      entries: (transactions.body.data.transactions as any[])
        .filter((entry) => entry.token === token)
        .map((entry) => `${entry.type}:${entry.status}`),
    }
  }

  for (const kind of ['collect', 'disbursement'] as const) {
    for (const outcome of notificationOutcomes) {
      test(`a signed ${outcome.wire} settles a pending ${kind} as ${outcome.status}`, async () => {
        const record = await pending(kind)
        const body = sandboxNotification(record.token, outcome.wire)
        const response = await postSignedNotification(app, body)
        assert.equal(response.status, 200, response.text)
        assert.deepEqual(response.body, { received: true })

        const after = await snapshot(kind, record.token)
        assert.equal(after.record.status, outcome.status)
        assert.equal(after.record.failureReason?.code, outcome.failureCode)
        assert.equal(typeof after.record.completionDate, 'string')
        assert.deepEqual(after.events, [`${kind}.${outcome.status}`, `${kind}.pending`])
        const succeeded = outcome.status === 'succeeded'
        assert.deepEqual(
          after.entries,
          kind === 'collect'
            ? succeeded
              ? ['cash-in:succeeded']
              : []
            : [succeeded ? 'cash-out:succeeded' : 'cash-out:canceled'],
        )
      })
    }
  }

  test('a notification for a final operation changes nothing', async () => {
    const record = await pending('collect')
    const first = sandboxNotification(record.token, 'REJECTED')
    assert.equal((await postSignedNotification(app, first)).status, 200)
    const settled = await snapshot('collect', record.token)
    const second = sandboxNotification(record.token, 'SUCCESSFUL')
    const response = await postSignedNotification(app, second)
    assert.equal(response.status, 200, response.text)
    assert.deepEqual(
      response.body,
      { received: true },
      'the answer tells the caller nothing of the operation',
    )
    assert.deepEqual(await snapshot('collect', record.token), settled)
  })

  test('an unknown operator status leaves the operation pending', async () => {
    const record = await pending('collect')
    const before = await snapshot('collect', record.token)
    const body = sandboxNotification(record.token, 'PROCESSING')
    const response = await postSignedNotification(app, body)
    assert.equal(response.status, 200, response.text)
    assert.deepEqual(response.body, { received: true })
    assert.deepEqual(await snapshot('collect', record.token), before)
  })

  const forgeries: { name: string; headers: (body: string) => Record<string, string> }[] = [
    { name: 'no signature', headers: () => ({}) },
    {
      name: 'a signature under another key',
      headers: (body) => ({ 'sandbox-signature': sign(body, Buffer.alloc(32, 7)) }),
    },
    {
      name: 'a signature of another body',
      headers: (body) => ({ 'sandbox-signature': sign(body.replace('SUCCESSFUL', 'REJECTED')) }),
    },
    { name: 'a truncated signature', headers: (body) => ({ 'sandbox-signature': sign(body).slice(0, 32) }) },
    {
      name: 'an upper-case signature',
      headers: (body) => ({ 'sandbox-signature': sign(body).toUpperCase() }),
    },
  ]
  for (const forgery of forgeries) {
    test(`${forgery.name}: 401 and nothing changes`, async () => {
      const record = await pending('disbursement')
      const before = await snapshot('disbursement', record.token)
      const body = sandboxNotification(record.token, 'SUCCESSFUL')
      const response = await postNotification(app, body, forgery.headers(body))
      assert.equal(response.status, 401, response.text)
      assert.equal(response.body.success, false)
      assert.equal(response.body.code, 'invalid_credentials')
      assert.deepEqual(await snapshot('disbursement', record.token), before)
      assert.equal(before.record.status, 'pending')
    })
  }

  test('an unknown provider name is a 404', async () => {
    const record = await pending('collect')
    const body = sandboxNotification(record.token, 'SUCCESSFUL')
    const response = await postSignedNotification(app, body, 'no-such-operator')
    assert.equal(response.status, 404, response.text)
    assert.equal(response.body.code, 'not_found')
    assert.equal((await snapshot('collect', record.token)).record.status, 'pending')
  })

  test('a signed notification for an unknown token is a 404', async () => {
    const body = sandboxNotification('aaaaa-bbbbb-ccccc-ddddd-eeeee', 'SUCCESSFUL')
    const response = await postSignedNotification(app, body)
    assert.equal(response.status, 404, response.text)
    assert.equal(response.body.code, 'not_found')
  })

  // CONTRACT.md: a transfer's `to` side is paid out only after its `from` side succeeded, and no
  // money is created or lost. A notification about a side that was never started must not move it.
  test("a notification for a transfer's to side, before its from side succeeded, changes nothing", async () => {
    const created = await client.post('/api/v1/transfer', transferBody('905', '001', unusedCallback))
    assert.equal(created.status, 200, created.text)
    const token = created.body.data.transfer.token
    const opening = await xofBalance(app, merchant.id)
    const before = await snapshot('transfer', token)

    const early = sandboxNotification(token, 'SUCCESSFUL', 'to')
    const response = await postSignedNotification(app, early)
    assert.ok(response.status < 500, response.text)
    const after = await snapshot('transfer', token)
    assert.equal(
      after.record.to.status,
      'pending',
      'the to side was never started, so it cannot have succeeded',
    )
    assert.deepEqual(after, before)
    assert.deepEqual(await xofBalance(app, merchant.id), opening, 'nothing was paid out')

    const declined = sandboxNotification(token, 'REJECTED', 'from')
    assert.equal((await postSignedNotification(app, declined)).status, 200)
    const final = await snapshot('transfer', token)
    assert.equal(final.record.status, 'canceled')
    assert.notEqual(
      final.record.to.status,
      'succeeded',
      'nothing is paid out when the from customer declined',
    )
    assert.deepEqual(final.entries, ['cash-out:canceled'], 'the to hold is released, never posted')
    assert.deepEqual(await xofBalance(app, merchant.id), {
      posted: opening.posted,
      held: opening.held - created.body.data.transfer.to.cashAmount,
    })
  })

  test('a signed notification naming a side the operation does not have is refused as a client error', async () => {
    const record = await pending('collect')
    const before = await snapshot('collect', record.token)
    for (const role of ['from', 'to']) {
      const body = sandboxNotification(record.token, 'SUCCESSFUL', role)
      const response = await postSignedNotification(app, body)
      assert.ok(
        response.status >= 400 && response.status < 500,
        `${role}: ${response.status} ${response.text}`,
      )
    }
    assert.deepEqual(await snapshot('collect', record.token), before)
  })

  test('a 906 operation awaiting the checkout page can be settled by a notification too', async () => {
    const record = await pending('collect', '906')
    assert.match(record.redirectUrl, /\/checkout\//)
    const body = sandboxNotification(record.token, 'SUCCESSFUL')
    const response = await postSignedNotification(app, body)
    assert.equal(response.status, 200, response.text)
    assert.equal((await snapshot('collect', record.token)).record.status, 'succeeded')
  })
})
