import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { IssuedMerchant } from '../../src/app/merchants.ts'
import { rotateWebhookSecret, signingSecrets } from '../../src/app/webhook-secrets.ts'
import { dispatcherDependencies } from '../../src/app/workers.ts'
import { signedDelivery } from '../../src/events/dispatcher.ts'
import { manualClock, startApp, type TestApp } from '../support/app.ts'
import { type ReceivedRequest, type Receiver, startReceiver } from '../support/receiver.ts'
import { sandboxPhone } from '../support/sandbox-requests.ts'
import { describeEachStore } from '../support/stores.ts'
import { isSignedBy, verifyWebhook } from '../support/webhooks.ts'

// CONTRACT.md, Callbacks: sandbox and live are kept apart. Each mode has its own webhook secret,
// so a sandbox event never verifies under the live secret, and the body says its mode.
//
// A live callback can never reach this machine's receiver (live mode refuses loopback addresses,
// and no test sends anything anywhere else), so a live event's request is the one the dispatcher
// builds and would send: `signedDelivery`, which every delivery goes through (checked below
// against a sandbox request actually received).

let sequence = 0

function collectBody(mode: 'sandbox' | 'live', callbackUrl: string) {
  return {
    amount: 10_000,
    channel: 'orange-money',
    country: 'CI',
    customer: { phoneNumber: sandboxPhone('905'), fullName: 'Awa Kone' },
    merchantReference: `modes-${mode}-${sequence++}`,
    callbackUrl,
  }
}

/** A request as a receiver would get it, from what the dispatcher sends. */
function asReceived(delivery: { body: string; headers: Record<string, string> }): ReceivedRequest {
  return {
    method: 'POST',
    path: '/',
    headers: delivery.headers,
    body: delivery.body,
    receivedAtMs: Date.now(),
  }
}

describeEachStore('callbacks: each mode has its own webhook secret', (store) => {
  let app: TestApp
  let receiver: Receiver

  before(async () => {
    receiver = await startReceiver()
    app = await startApp(store(), {
      clock: manualClock(Date.now() * 1000),
      workers: 'manual',
      liveOperators: true,
    })
  })
  after(async () => {
    await app.close()
    await receiver.close()
  })

  /** A sandbox collect's pending event, delivered for real to the receiver. */
  async function sandboxCallback(merchant: IssuedMerchant): Promise<ReceivedRequest> {
    const path = `/modes/sandbox/${sequence++}`
    const response = await app
      .client(merchant.sandbox)
      .post('/api/v1/collect', collectBody('sandbox', receiver.url(path)))
    assert.equal(response.status, 200, response.text)
    await app.workers.runDue()
    const [request] = receiver.requestsTo(path)
    assert.ok(request, `a callback reached ${path}`)
    return request
  }

  /**
   * A live collect's events, and the request the dispatcher makes of each. Their callbackUrl is
   * then pointed at a loopback address, which live delivery refuses: nothing leaves this machine.
   */
  async function liveDeliveries(merchant: IssuedMerchant) {
    const client = app.client(merchant.live)
    const response = await client.post(
      '/api/v1/collect',
      collectBody('live', 'http://192.0.2.10/never-called'),
    )
    assert.equal(response.status, 200, response.text)
    const token = response.body.data.collect.token as string
    const operation = await app.db
      .selectFrom('operations')
      .select('id')
      .where('token', '=', token)
      .executeTakeFirstOrThrow()
    await app.db
      .updateTable('events')
      .set({ callback_url: 'http://127.0.0.1:9/live-is-refused' })
      .where('operation_id', '=', operation.id)
      .execute()
    const listed = await client.get('/api/v1/events', { token, perPage: 100 })
    assert.equal(listed.status, 200, listed.text)
    const events = listed.body.data.events as any[]
    assert.ok(events.length >= 1, 'a live operation makes events')
    const dependencies = dispatcherDependencies(app.context)
    const deliveries = []
    for (const listedEvent of events) {
      assert.equal(listedEvent.mode, 'live', 'the events API shows the mode')
      const event = await app.context.store.outbox.find(merchant.id, 'live', listedEvent.id)
      assert.ok(event)
      const delivery = await signedDelivery(dependencies, event, Math.floor(Date.now() / 1000))
      assert.ok(delivery)
      deliveries.push(delivery)
    }
    return deliveries
  }

  test('merchant creation issues one secret per mode; the top-level webhookSecret is the sandbox one', async () => {
    const merchant = await app.createMerchant('Two secrets')
    assert.match(merchant.sandbox.webhookSecret, /^whsec_[A-Za-z0-9+/]+=*$/)
    assert.match(merchant.live.webhookSecret, /^whsec_[A-Za-z0-9+/]+=*$/)
    assert.notEqual(merchant.sandbox.webhookSecret, merchant.live.webhookSecret)
    assert.equal(merchant.webhookSecret, merchant.sandbox.webhookSecret)
    const rows = await app.db
      .selectFrom('webhook_secrets')
      .select('mode')
      .where('merchant_id', '=', merchant.id)
      .orderBy('mode')
      .execute()
    assert.deepEqual(
      rows.map((row) => row.mode),
      ['live', 'sandbox'],
    )
    assert.deepEqual(await signingSecrets(app.context, merchant.id, 'sandbox'), [
      merchant.sandbox.webhookSecret,
    ])
    assert.deepEqual(await signingSecrets(app.context, merchant.id, 'live'), [merchant.live.webhookSecret])
  })

  test('a sandbox event says mode sandbox and verifies under the sandbox secret, never under the live one', async () => {
    const merchant = await app.createMerchant('Sandbox callbacks')
    const request = await sandboxCallback(merchant)
    const payload = verifyWebhook(merchant.sandbox.webhookSecret, request) as any
    assert.equal(payload.mode, 'sandbox')
    assert.ok(isSignedBy(merchant.webhookSecret, request), 'the top-level secret is the sandbox one')
    assert.throws(
      () => verifyWebhook(merchant.live.webhookSecret, request),
      'the live secret does not verify it',
    )
    assert.equal(String(request.headers['webhook-signature']).split(' ').length, 1, 'one signature')

    // The request the dispatcher builds is the one that was received, signature included.
    const event = await app.context.store.outbox.find(
      merchant.id,
      'sandbox',
      String(request.headers['webhook-id']),
    )
    assert.ok(event)
    const built = await signedDelivery(
      dispatcherDependencies(app.context),
      event,
      Number(request.headers['webhook-timestamp']),
    )
    assert.equal(built?.body, request.body)
    assert.equal(built?.headers['webhook-signature'], request.headers['webhook-signature'])

    const read = await app.client(merchant.sandbox).get(`/api/v1/events/${event.id}`)
    assert.equal(read.status, 200, read.text)
    assert.equal(read.body.data.event.mode, 'sandbox')
  })

  test('a live event says mode live and verifies under the live secret, never under the sandbox one', async () => {
    const merchant = await app.createMerchant('Live callbacks')
    const deliveries = await liveDeliveries(merchant)
    for (const delivery of deliveries) {
      const request = asReceived(delivery)
      const payload = verifyWebhook(merchant.live.webhookSecret, request) as any
      assert.equal(payload.mode, 'live')
      assert.equal(JSON.parse(delivery.body).mode, 'live')
      assert.throws(() => verifyWebhook(merchant.sandbox.webhookSecret, request), 'not the sandbox secret')
      assert.throws(
        () => verifyWebhook(merchant.webhookSecret, request),
        'not the top-level (sandbox) secret',
      )
    }
  })

  test('rotating the live secret changes live signing only; rotating the sandbox one, sandbox only', async () => {
    const merchant = await app.createMerchant('Rotating live')
    const live = await rotateWebhookSecret(app.context, merchant.id, 'live')
    assert.ok(live)
    const sandboxRequest = await sandboxCallback(merchant)
    assert.equal(String(sandboxRequest.headers['webhook-signature']).split(' ').length, 1)
    assert.ok(isSignedBy(merchant.sandbox.webhookSecret, sandboxRequest), 'sandbox signing is unchanged')
    assert.equal(isSignedBy(live, sandboxRequest), false, 'the new live secret does not sign sandbox events')
    for (const delivery of await liveDeliveries(merchant)) {
      const request = asReceived(delivery)
      assert.equal(delivery.headers['webhook-signature']?.split(' ').length, 2, 'both live secrets sign')
      assert.ok(isSignedBy(live, request))
      assert.ok(isSignedBy(merchant.live.webhookSecret, request), 'the old live secret, for 24 hours')
      assert.equal(isSignedBy(merchant.sandbox.webhookSecret, request), false)
    }

    const sandbox = await rotateWebhookSecret(app.context, merchant.id, 'sandbox')
    assert.ok(sandbox)
    const afterSandboxRotation = await sandboxCallback(merchant)
    assert.ok(isSignedBy(sandbox, afterSandboxRotation))
    assert.ok(isSignedBy(merchant.sandbox.webhookSecret, afterSandboxRotation))
    assert.equal(isSignedBy(live, afterSandboxRotation), false)
    assert.deepEqual(await signingSecrets(app.context, merchant.id, 'live'), [
      live,
      merchant.live.webhookSecret,
    ])
  })
})

describeEachStore('callbacks: merchants created before each mode had its own secret', (store) => {
  let app: TestApp
  let receiver: Receiver
  const opened: TestApp[] = []

  before(async () => {
    receiver = await startReceiver()
    app = await startApp(store(), {
      clock: manualClock(Date.now() * 1000),
      workers: 'manual',
      liveOperators: true,
    })
  })
  after(async () => {
    for (const other of opened) await other.close()
    await app.close()
    await receiver.close()
  })

  const secretRows = (merchantId: string) =>
    app.db
      .selectFrom('webhook_secrets')
      .select(['id', 'mode', 'secret_encrypted', 'created_at_us', 'expires_at_us'])
      .where('merchant_id', '=', merchantId)
      .orderBy('id')
      .execute()

  /** A merchant as the database held it before: one secret, which the migration made its sandbox one. */
  async function legacyMerchant(name: string): Promise<IssuedMerchant> {
    const merchant = await app.createMerchant(name)
    await app.db
      .deleteFrom('webhook_secrets')
      .where('merchant_id', '=', merchant.id)
      .where('mode', '=', 'live')
      .execute()
    assert.deepEqual(
      (await secretRows(merchant.id)).map((row) => row.mode),
      ['sandbox'],
    )
    return merchant
  }

  async function restart(): Promise<TestApp> {
    const started = await startApp(store(), {
      clock: manualClock(Date.now() * 1000),
      workers: 'manual',
      liveOperators: true,
    })
    opened.push(started)
    return started
  }

  test('at the next start it is issued a live secret, and keeps its old one as its sandbox secret', async () => {
    const merchant = await legacyMerchant('Merchant from before')
    const [sandboxRow] = await secretRows(merchant.id)
    const restarted = await restart()

    const rows = await secretRows(merchant.id)
    assert.deepEqual(
      rows.map((row) => row.mode),
      ['sandbox', 'live'],
    )
    assert.deepEqual(rows[0], sandboxRow, 'the sandbox secret is the one it had, untouched')
    assert.equal(rows[1]!.expires_at_us, null)
    const [live] = await signingSecrets(restarted.context, merchant.id, 'live')
    assert.match(live!, /^whsec_/)
    assert.notEqual(live, merchant.sandbox.webhookSecret)
    assert.deepEqual(await signingSecrets(restarted.context, merchant.id, 'sandbox'), [
      merchant.webhookSecret,
    ])

    // Its sandbox callbacks verify under the secret it always had, and only under it.
    const path = `/legacy/${sequence++}`
    const response = await restarted
      .client(merchant.sandbox)
      .post('/api/v1/collect', collectBody('sandbox', receiver.url(path)))
    assert.equal(response.status, 200, response.text)
    await restarted.workers.runDue()
    const [request] = receiver.requestsTo(path)
    assert.ok(request)
    assert.ok(isSignedBy(merchant.webhookSecret, request))
    assert.equal(isSignedBy(live!, request), false)

    // Another start issues nothing more: the step is idempotent.
    await restart()
    assert.equal((await secretRows(merchant.id)).length, 2)

    // Nobody has seen the issued live secret: rotating it shows the merchant a new one.
    const rotated = await rotateWebhookSecret(restarted.context, merchant.id, 'live')
    assert.ok(rotated)
    assert.deepEqual(await signingSecrets(restarted.context, merchant.id, 'live'), [rotated, live])
  })

  test('instances starting together issue one live secret, not one each', async () => {
    const merchants = [await legacyMerchant('Legacy one'), await legacyMerchant('Legacy two')]
    const started = await Promise.all([0, 1, 2].map(() => restart()))
    assert.equal(started.length, 3)
    for (const merchant of merchants) {
      const rows = await secretRows(merchant.id)
      assert.deepEqual(
        rows.map((row) => row.mode),
        ['sandbox', 'live'],
        `${merchant.name}: one sandbox and one live secret`,
      )
    }
  })
})
