import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { signingSecretsFreshForMs } from '../../src/app/mechanisms/signing-secret-cache.ts'
import { rotateWebhookSecret, signingSecrets } from '../../src/app/webhook-secrets.ts'
import { manualClock, startApp, type TestApp } from '../support/app.ts'
import { type ReceivedRequest, type Receiver, startReceiver } from '../support/receiver.ts'
import { describeEachStore } from '../support/stores.ts'
import { isSignedBy } from '../support/webhooks.ts'

// CONTRACT.md, Callbacks: each mode's webhook secret is rotatable; during a rotation both secrets
// sign, space-separated in webhook-signature. The replaced secret signs for 24 hours.
const minute = 60_000
const overlapMs = 24 * 60 * minute

describeEachStore('webhook secret rotation', (store) => {
  let app: TestApp
  let clock: ReturnType<typeof manualClock>
  let receiver: Receiver
  let sequence = 0

  before(async () => {
    receiver = await startReceiver()
    clock = manualClock(Date.now() * 1000)
    app = await startApp(store(), { clock, workers: 'manual' })
  })
  after(async () => {
    await app.close()
    await receiver.close()
  })

  /** Sends one callback now (a 905 collect's pending event) and returns the request received. */
  async function callbackNow(keys: { apiKey: string; secretKey: string }): Promise<ReceivedRequest> {
    const path = `/rotation/${sequence++}`
    const response = await app.client(keys).post('/api/v1/collect', {
      amount: 5_000,
      channel: 'orange-money',
      country: 'CI',
      customer: { phoneNumber: `+2250700${String(sequence).padStart(3, '0')}905` },
      merchantReference: `rotation-${sequence}`,
      callbackUrl: receiver.url(path),
    })
    assert.equal(response.status, 200, response.text)
    await app.workers.runDue()
    const [request] = receiver.requestsTo(path)
    assert.ok(request, `a callback reached ${path}`)
    return request
  }

  const signatureCount = (request: ReceivedRequest) =>
    String(request.headers['webhook-signature']).split(' ').length

  test('both secrets sign for 24 hours after a rotation, then only the new one', async () => {
    const merchant = await app.createMerchant('Rotating merchant')
    const original = merchant.webhookSecret

    const beforeRotation = await callbackNow(merchant.sandbox)
    assert.equal(signatureCount(beforeRotation), 1)
    assert.ok(isSignedBy(original, beforeRotation))

    const rotated = await rotateWebhookSecret(app.context, merchant.id, 'sandbox')
    assert.ok(rotated, 'a new secret is issued')
    assert.match(rotated, /^whsec_[A-Za-z0-9+/]+=*$/)
    assert.notEqual(rotated, original)
    assert.equal(isSignedBy(rotated, beforeRotation), false, 'the new secret did not sign what came before')

    const during = await callbackNow(merchant.sandbox)
    assert.equal(signatureCount(during), 2, 'two signatures, space-separated')
    assert.ok(isSignedBy(original, during), 'the old secret still verifies')
    assert.ok(isSignedBy(rotated, during), 'the new secret verifies')

    clock.advance(overlapMs - minute)
    const nearTheEnd = await callbackNow(merchant.sandbox)
    assert.ok(isSignedBy(original, nearTheEnd), 'the old secret verifies until 24 hours have passed')
    assert.ok(isSignedBy(rotated, nearTheEnd))

    clock.advance(2 * minute)
    const afterOverlap = await callbackNow(merchant.sandbox)
    assert.equal(signatureCount(afterOverlap), 1)
    assert.equal(isSignedBy(original, afterOverlap), false, 'the old secret no longer signs')
    assert.ok(isSignedBy(rotated, afterOverlap))
  })

  test('rotation is per merchant: another merchant keeps one secret', async () => {
    const rotating = await app.createMerchant('Rotating merchant')
    const steady = await app.createMerchant('Steady merchant')
    const rotated = await rotateWebhookSecret(app.context, rotating.id, 'sandbox')
    assert.ok(rotated)
    const request = await callbackNow(steady.sandbox)
    assert.equal(signatureCount(request), 1)
    assert.ok(isSignedBy(steady.webhookSecret, request))
    assert.equal(isSignedBy(rotated, request), false)
    assert.equal(isSignedBy(rotating.webhookSecret, request), false)
  })

  test('rotation is per mode: a live rotation leaves sandbox callbacks to the sandbox secret alone', async () => {
    const merchant = await app.createMerchant('Live rotation')
    const rotated = await rotateWebhookSecret(app.context, merchant.id, 'live')
    assert.ok(rotated)
    assert.notEqual(rotated, merchant.live.webhookSecret)
    const sandbox = await callbackNow(merchant.sandbox)
    assert.equal(signatureCount(sandbox), 1, 'sandbox events are signed as before, once')
    assert.ok(isSignedBy(merchant.sandbox.webhookSecret, sandbox))
    assert.equal(isSignedBy(rotated, sandbox), false)
    assert.equal(isSignedBy(merchant.live.webhookSecret, sandbox), false)
    assert.deepEqual(await signingSecrets(app.context, merchant.id, 'sandbox'), [
      merchant.sandbox.webhookSecret,
    ])
    assert.deepEqual(await signingSecrets(app.context, merchant.id, 'live'), [
      rotated,
      merchant.live.webhookSecret,
    ])
    clock.advance(overlapMs + minute)
    assert.deepEqual(
      await signingSecrets(app.context, merchant.id, 'live'),
      [rotated],
      'the old live secret stops signing after 24 hours',
    )
  })

  test('a rotation made by another instance signs there too within half a second', async () => {
    const merchant = await app.createMerchant('Rotated elsewhere')
    assert.equal(signatureCount(await callbackNow(merchant.sandbox)), 1)
    const other = await startApp(store(), { clock, workers: 'manual' })
    try {
      const rotated = await rotateWebhookSecret(other.context, merchant.id, 'sandbox')
      assert.ok(rotated)
      await new Promise((resolve) => setTimeout(resolve, signingSecretsFreshForMs + 50))
      const after = await callbackNow(merchant.sandbox)
      assert.equal(signatureCount(after), 2)
      assert.ok(isSignedBy(rotated, after), 'the new secret signs on this instance too')
    } finally {
      await other.close()
    }
  })

  test('an unknown merchant gets no secret', async () => {
    assert.equal(await rotateWebhookSecret(app.context, 'mer_doesnotexist000000', 'live'), undefined)
  })
})
