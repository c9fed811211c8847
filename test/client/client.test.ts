import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import {
  createSikaClient,
  type SikaClient,
  type SikaErrorCode,
  SikaRequestError,
  verifyCallback,
} from '../../client/sika-client.ts'
import type { ErrorCode } from '../../src/errors.ts'
import { signatureHeaders } from '../../src/events/signing.ts'
import { startApp, type TestApp } from '../support/app.ts'
import { freePort } from '../support/process.ts'
import { type ReceivedRequest, type Receiver, startReceiver } from '../support/receiver.ts'
import { describeEachStore } from '../support/stores.ts'

// The typed client (client/sika-client.ts) against the real server on a real port: typed values
// on success, failures as values carrying their documented codes, pages followed to the end, and
// callbacks verified as a merchant's receiver would.

// Compile-time: the codes the client types name are the registry's, less the one no documented
// route answers: 405 (the client only sends documented methods).
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false
const documentedCodes: Equal<SikaErrorCode, Exclude<ErrorCode, 'method_not_allowed'>> = true
void documentedCodes

const tokenPattern = /^[a-z0-9]{5}(-[a-z0-9]{5}){4}$/
let sequence = 0
const reference = (name: string) => `${name}-${Date.now()}-${sequence++}`

function collectBody(callbackUrl = 'http://127.0.0.1:9/sika/callback') {
  return {
    amount: 5000,
    channel: 'orange-money',
    country: 'CI',
    customer: { phoneNumber: '+2250700000002', fullName: 'Awa Kone', email: 'awa@sika.test' },
    merchantReference: reference('order'),
    callbackUrl,
  }
}

describeEachStore('the typed client', (store) => {
  let app: TestApp
  let client: SikaClient
  let webhookSecret: string
  let receiver: Receiver

  before(async () => {
    app = await startApp(store())
    receiver = await startReceiver()
    const merchant = await app.createMerchant('Client merchant')
    webhookSecret = merchant.webhookSecret
    client = createSikaClient({ baseUrl: app.url, ...merchant.sandbox })
  })
  after(async () => {
    await receiver?.close()
    await app?.close()
  })

  test('an initiation answers the record as a typed value, and get reads the same record back', async () => {
    const created = await client.collect.initiate(collectBody())
    assert.ok(created.ok, JSON.stringify(created))
    assert.equal(created.status, 200)
    assert.match(created.requestId ?? '', /.+/)
    assert.equal(created.data.operation, 'collect')
    assert.match(created.data.token, tokenPattern)
    assert.equal(created.data.status, 'succeeded')
    assert.equal(created.data.cashAmount, 4925)

    const read = await client.collect.get(created.data.token)
    assert.ok(read.ok, JSON.stringify(read))
    assert.deepEqual(read.data, created.data)
  })

  test('every kind goes through the same table: a transfer, a disbursement, and their reads', async () => {
    const transfer = await client.transfer.initiate({
      from: {
        amount: 7000,
        channel: 'orange-money',
        country: 'CI',
        customer: { phoneNumber: '+2250700000005' },
      },
      to: { amount: 6500, channel: 'moov-money', country: 'BJ', customer: { phoneNumber: '+22961000006' } },
      merchantReference: reference('transfer'),
      callbackUrl: 'http://127.0.0.1:9/sika/callback',
    })
    assert.ok(transfer.ok, JSON.stringify(transfer))
    assert.equal(transfer.data.from.status, 'succeeded')
    assert.equal(transfer.data.to.status, 'succeeded')
    const readTransfer = await client.transfer.get(transfer.data.token)
    assert.ok(readTransfer.ok)
    assert.equal(readTransfer.data.token, transfer.data.token)

    const withdraw = await client.withdraw.initiate({
      amount: 1000,
      channel: 'mtn-momo',
      country: 'CI',
      customer: { phoneNumber: '+2250500000004' },
      merchantReference: reference('withdraw'),
      callbackUrl: 'http://127.0.0.1:9/sika/callback',
    })
    assert.ok(withdraw.ok, JSON.stringify(withdraw))
    // The spec lists withdrawals under `disbursements`: the client's table knows it.
    const withdraws = await client.withdraw.list({ merchantReference: withdraw.data.merchantReference })
    assert.ok(withdraws.ok, JSON.stringify(withdraws))
    assert.deepEqual(
      withdraws.data.items.map((item) => item.token),
      [withdraw.data.token],
    )
  })

  test('channels, transactions, events and health answer typed values', async () => {
    const channels = await client.channels.list()
    assert.ok(channels.ok)
    assert.ok(channels.data.some((channel) => channel.channel === 'orange-money' && channel.country === 'CI'))

    const transactions = await client.transactions.list({ perPage: 3, type: 'cash-in' })
    assert.ok(transactions.ok, JSON.stringify(transactions))
    assert.equal(transactions.data.items.length, 3)
    assert.ok(transactions.data.items.every((movement) => movement.type === 'cash-in'))
    assert.equal(transactions.data.pagination.perPage, 3)

    const created = await client.collect.initiate(collectBody())
    assert.ok(created.ok)
    const events = await client.events.list({ token: created.data.token })
    assert.ok(events.ok, JSON.stringify(events))
    const succeeded = events.data.items.find((event) => event.type === 'collect.succeeded')
    assert.ok(succeeded, 'a collect.succeeded event')
    const event = await client.events.get(succeeded.id)
    assert.ok(event.ok, JSON.stringify(event))
    assert.deepEqual(event.data.deliveryAttempts, [])
    // POST without a body: the client sends no content-type, so no 415.
    const redelivered = await client.events.redeliver(succeeded.id)
    assert.ok(redelivered.ok, JSON.stringify(redelivered))
    assert.equal(redelivered.data.deliveryStatus, 'pending')

    const live = await client.health.live()
    assert.ok(live.ok)
    assert.equal(live.data.status, 'ok')
    const ready = await client.health.ready()
    assert.ok(ready.ok)
    assert.equal(ready.data.status, 'ready')
  })

  test('a refund on its collect, the balance, and the CSV statement, typed', async () => {
    const collected = await client.collect.initiate(collectBody())
    assert.ok(collected.ok, JSON.stringify(collected))
    const refund = await client.refund.initiate(collected.data.token, {
      merchantReference: reference('refund'),
      amount: 1000,
    })
    assert.ok(refund.ok, JSON.stringify(refund))
    assert.equal(refund.data.operation, 'refund')
    assert.equal(refund.data.collect, collected.data.token)
    assert.equal(refund.data.amount, 1000)
    const read = await client.refund.get(refund.data.token)
    assert.ok(read.ok)
    assert.deepEqual(read.data, refund.data)
    const tooMuch = await client.refund.initiate(collected.data.token, {
      merchantReference: reference('refund'),
      amount: 4001,
    })
    assert.ok(!tooMuch.ok)
    assert.equal(tooMuch.error.code, 'refund_exceeds_collected')

    const balance = await client.balance.get()
    assert.ok(balance.ok, JSON.stringify(balance))
    assert.ok(balance.data.some((entry) => entry.currency === 'XOF' && entry.available > 0))

    const statement = await client.transactions.statement({ operation: 'refund' })
    assert.ok(statement.ok, JSON.stringify(statement))
    const lines = statement.data.trimEnd().split('\r\n')
    assert.equal(
      lines[0],
      'reference,date,operation,type,status,amount,currency,balanceAfter,merchantReference,token',
    )
    assert.equal(lines.length, 2)
    assert.ok(lines[1]!.endsWith(refund.data.token))
  })

  test('a payout batch, its items and a cancel, typed', async () => {
    const items = [0, 1].map((index) => ({
      amount: 1000 + index,
      channel: 'wave',
      country: 'SN',
      customer: { phoneNumber: `+22177000001${index}`, fullName: `Seller ${index}` },
      merchantReference: reference('batch-item'),
    }))
    const created = await client.payoutBatches.create({ merchantReference: reference('batch'), items })
    assert.ok(created.ok, JSON.stringify(created))
    assert.equal(created.data.itemCount, 2)
    const read = await client.payoutBatches.get(created.data.token)
    assert.ok(read.ok, JSON.stringify(read))
    assert.equal(read.data.token, created.data.token)
    const listed = await client.payoutBatches.list({ perPage: 5 })
    assert.ok(listed.ok, JSON.stringify(listed))
    assert.ok(listed.data.items.some((batch) => batch.token === created.data.token))
    const itemsOfBatch = await client.disbursement.list({ batch: created.data.token })
    assert.ok(itemsOfBatch.ok, JSON.stringify(itemsOfBatch))
    assert.equal(itemsOfBatch.data.items.length, 2)
    assert.ok(itemsOfBatch.data.items.every((item) => item.batch === created.data.token))
    // The batch holds what its items take from the balance: their cashAmounts.
    const heldByItems = itemsOfBatch.data.items.reduce((sum, item) => sum + item.cashAmount, 0)
    assert.equal(created.data.totalAmount, heldByItems)

    const paid = await client.disbursement.initiate({
      ...items[0]!,
      merchantReference: reference('payout'),
      callbackUrl: 'http://127.0.0.1:9/sika/callback',
    })
    assert.ok(paid.ok, JSON.stringify(paid))
    const refused = await client.disbursement.cancel(paid.data.token, { reason: 'typed client' })
    assert.ok(!refused.ok)
    assert.equal(refused.error.code, 'not_cancelable')
  })

  test('a payment link: created with its page and QR code, read, listed and closed, typed', async () => {
    const created = await client.paymentLinks.create({
      merchantReference: reference('link'),
      description: 'Wax print, 2 yards',
      country: 'CI',
      amount: 12000,
    })
    assert.ok(created.ok, JSON.stringify(created))
    assert.equal(created.data.status, 'active')
    assert.ok(created.data.url.endsWith(`/pay/${created.data.token}`), created.data.url)
    const read = await client.paymentLinks.get(created.data.token)
    assert.ok(read.ok, JSON.stringify(read))
    assert.equal(read.data.paymentCount, 0)
    const listed = await client.paymentLinks.list({ perPage: 5 })
    assert.ok(listed.ok, JSON.stringify(listed))
    assert.ok(listed.data.items.some((link) => link.token === created.data.token))
    const closed = await client.paymentLinks.close(created.data.token)
    assert.ok(closed.ok, JSON.stringify(closed))
    assert.equal(closed.data.status, 'closed')
  })

  test('401: wrong or missing keys are failures with their codes', async () => {
    const wrong = createSikaClient({
      baseUrl: app.url,
      apiKey: 'pk_test_unknown',
      secretKey: 'sk_test_unknown',
    })
    const refused = await wrong.channels.list()
    assert.ok(!refused.ok)
    assert.equal(refused.error.status, 401)
    assert.equal(refused.error.code, 'invalid_credentials')
    assert.match(refused.error.requestId, /.+/)

    const missing = createSikaClient({ baseUrl: app.url, apiKey: '', secretKey: '' })
    const unnamed = await missing.collect.list()
    assert.ok(!unnamed.ok)
    assert.equal(unnamed.error.status, 401)
    assert.equal(unnamed.error.code, 'missing_credentials')
  })

  test('404: an unknown token, or a token of another kind, is not_found', async () => {
    const unknown = await client.collect.get('aaaaa-bbbbb-ccccc-ddddd-eeeee')
    assert.ok(!unknown.ok)
    assert.equal(unknown.error.status, 404)
    assert.equal(unknown.error.code, 'not_found')

    const created = await client.collect.initiate(collectBody())
    assert.ok(created.ok)
    const otherKind = await client.recharge.get(created.data.token)
    assert.ok(!otherKind.ok)
    assert.equal(otherKind.error.code, 'not_found')

    const event = await client.events.get('evt_doesnotexist')
    assert.ok(!event.ok)
    assert.equal(event.error.code, 'not_found')
  })

  test('409: the same reference with another body is duplicate_merchant_reference; with the same body, the same record', async () => {
    const body = collectBody()
    const first = await client.collect.initiate(body)
    assert.ok(first.ok)
    const again = await client.collect.initiate(body)
    assert.ok(again.ok)
    assert.equal(again.data.token, first.data.token)

    const conflicting = await client.collect.initiate({ ...body, amount: 6000 })
    assert.ok(!conflicting.ok)
    if (conflicting.error.code !== 'duplicate_merchant_reference') assert.fail(JSON.stringify(conflicting))
    // Narrowing on the code narrows the status too.
    const status: 409 = conflicting.error.status
    assert.equal(status, 409)
    assert.match(conflicting.error.message, /merchantReference/)
  })

  test('422: a bad body or a bad query is validation_failed with the fields at fault', async () => {
    const invalid = await client.collect.initiate({
      ...collectBody(),
      customer: { phoneNumber: 'not a phone' },
    })
    assert.ok(!invalid.ok)
    if (invalid.error.code !== 'validation_failed') assert.fail(JSON.stringify(invalid))
    assert.equal(invalid.error.status, 422)
    assert.deepEqual(
      invalid.error.errors?.map((error) => error.field),
      ['customer.phoneNumber'],
    )

    const tooBig = await client.disbursement.initiate({
      amount: 900_000_000,
      channel: 'wave',
      country: 'SN',
      customer: { phoneNumber: '+221770000003' },
      merchantReference: reference('payout'),
      callbackUrl: 'http://127.0.0.1:9/sika/callback',
    })
    assert.ok(!tooBig.ok)
    assert.equal(tooBig.error.status, 422)
    assert.ok(['amount_out_of_range', 'insufficient_balance'].includes(tooBig.error.code), tooBig.error.code)

    const badQuery = await client.transactions.list({ perPage: 500 })
    assert.ok(!badQuery.ok)
    assert.equal(badQuery.error.code, 'validation_failed')
  })

  test('no answer is a network_error, and an answer the document does not describe an unexpected_response', async () => {
    const closedPort = await freePort()
    const closed = createSikaClient({
      baseUrl: `http://127.0.0.1:${closedPort}`,
      apiKey: 'pk_test_x',
      secretKey: 'sk_test_x',
    })
    const unreachable = await closed.channels.list()
    assert.ok(!unreachable.ok)
    assert.equal(unreachable.error.code, 'network_error')
    assert.equal(unreachable.error.status, 0)

    const proxied = createSikaClient({
      baseUrl: app.url,
      apiKey: 'pk_test_x',
      secretKey: 'sk_test_x',
      fetch: async () =>
        new Response('<html>bad gateway</html>', { status: 502, headers: { 'content-type': 'text/html' } }),
    })
    const gateway = await proxied.channels.list()
    assert.ok(!gateway.ok)
    assert.equal(gateway.error.code, 'unexpected_response')
    assert.equal(gateway.error.status, 502)
  })

  test('the page iterators visit every item exactly once, newest first, following meta.pagination', async () => {
    // A merchant of its own, so the list holds exactly what this test made.
    const merchant = await app.createMerchant('Pages merchant')
    const own = createSikaClient({ baseUrl: app.url, ...merchant.sandbox })
    const created: string[] = []
    for (let index = 0; index < 25; index++) {
      const result = await own.collect.initiate(collectBody())
      assert.ok(result.ok, JSON.stringify(result))
      created.push(result.data.token)
    }
    const newestFirst = [...created].reverse()

    const visited: string[] = []
    for await (const item of own.collect.listAll({ perPage: 10 })) visited.push(item.token)
    assert.deepEqual(visited, newestFirst)

    const pageSizes: number[] = []
    const currentPages: number[] = []
    for await (const page of own.collect.pages({ perPage: 10, status: 'succeeded' })) {
      pageSizes.push(page.items.length)
      currentPages.push(page.pagination.currentPage)
      assert.equal(page.pagination.total, 25)
    }
    assert.deepEqual(pageSizes, [10, 10, 5])
    assert.deepEqual(currentPages, [1, 2, 3])

    const fromPageTwo: string[] = []
    for await (const item of own.collect.listAll({ perPage: 10, page: 2 })) fromPageTwo.push(item.token)
    assert.deepEqual(fromPageTwo, newestFirst.slice(10))

    const none: string[] = []
    for await (const item of own.collect.listAll({ perPage: 10, status: 'failed' })) none.push(item.token)
    assert.deepEqual(none, [])
  })

  test('a page that fails ends the iteration with a SikaRequestError carrying the typed failure', async () => {
    await assert.rejects(
      async () => {
        for await (const _item of client.collect.listAll({ perPage: 0 })) assert.fail('no page is valid')
      },
      (error: unknown) => {
        assert.ok(error instanceof SikaRequestError)
        assert.equal(error.failure.code, 'validation_failed')
        assert.equal(error.failure.status, 422)
        return true
      },
    )
  })

  test('verifyCallback accepts a callback the dispatcher really sent, and refuses it tampered', async () => {
    const created = await client.collect.initiate(collectBody(receiver.url('/sika/callback')))
    assert.ok(created.ok)
    const isSucceeded = (candidate: ReceivedRequest) => {
      const body = JSON.parse(candidate.body) as { type: string; data: { collect?: { token: string } } }
      return body.type === 'collect.succeeded' && body.data.collect?.token === created.data.token
    }
    // Earlier tests left callbacks to a closed port in the queue: run the dispatcher until ours is out.
    const deadline = Date.now() + 10_000
    while (!receiver.requestsTo('/sika/callback').some(isSucceeded) && Date.now() < deadline) {
      await app.workers.runDue()
    }
    const request = receiver.requestsTo('/sika/callback').find(isSucceeded)
    assert.ok(request, 'the dispatcher sent the collect.succeeded callback')

    const verified = verifyCallback(webhookSecret, request.body, request.headers)
    assert.ok(verified.ok, JSON.stringify(verified))
    assert.equal(verified.event.type, 'collect.succeeded')
    assert.equal(verified.event.id, request.headers['webhook-id'])
    assert.ok('collect' in verified.event.data)
    assert.equal(verified.event.data.collect.token, created.data.token)
    // fetch's Headers and a Buffer body verify the same.
    const asFetch = new Headers(request.headers as Record<string, string>)
    assert.ok(verifyCallback(webhookSecret, Buffer.from(request.body), asFetch).ok)

    const tampered = verifyCallback(
      webhookSecret,
      request.body.replace('"amount":5000', '"amount":5'),
      request.headers,
    )
    assert.deepEqual(tampered.ok ? undefined : tampered.error.code, 'invalid_signature')

    const otherSecret = verifyCallback(
      `whsec_${Buffer.alloc(32, 7).toString('base64')}`,
      request.body,
      request.headers,
    )
    assert.deepEqual(otherSecret.ok ? undefined : otherSecret.error.code, 'invalid_signature')

    const { 'webhook-signature': _signature, ...unsigned } = request.headers
    const missing = verifyCallback(webhookSecret, request.body, unsigned)
    assert.deepEqual(missing.ok ? undefined : missing.error.code, 'missing_headers')
  })

  test('verifyCallback refuses an old timestamp and a signed body that is not an event', () => {
    const event = JSON.stringify({
      id: 'evt_old',
      type: 'collect.succeeded',
      createdAt: 'x',
      data: { collect: {} },
    })
    const hourAgo = Math.floor(Date.now() / 1000) - 3600
    const replayed = verifyCallback(
      webhookSecret,
      event,
      signatureHeaders('evt_old', hourAgo, event, [webhookSecret]),
    )
    assert.deepEqual(replayed.ok ? undefined : replayed.error.code, 'invalid_timestamp')

    const now = Math.floor(Date.now() / 1000)
    const notAnEvent = JSON.stringify({ hello: 'world' })
    const odd = verifyCallback(
      webhookSecret,
      notAnEvent,
      signatureHeaders('evt_odd', now, notAnEvent, [webhookSecret]),
    )
    assert.deepEqual(odd.ok ? undefined : odd.error.code, 'invalid_payload')

    const otherId = verifyCallback(
      webhookSecret,
      event,
      signatureHeaders('evt_other', now, event, [webhookSecret]),
    )
    assert.deepEqual(otherId.ok ? undefined : otherId.error.code, 'invalid_payload')

    const fresh = verifyCallback(
      webhookSecret,
      event,
      signatureHeaders('evt_old', now, event, [webhookSecret]),
    )
    assert.ok(fresh.ok, JSON.stringify(fresh))
  })
})
