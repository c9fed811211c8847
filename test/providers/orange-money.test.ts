import assert from 'node:assert/strict'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { after, before, test } from 'node:test'
import { startOrangeMoneySimulator } from '../../src/simulators/orange-money/orange-money-simulator.ts'
import type { RunningSimulator } from '../../src/simulators/simulator.ts'
import type { ApiClient, TestApp } from '../support/app.ts'
import { type LiveApp, settledRecord, startLiveApp } from '../support/live.ts'
import { describeEachStore } from '../support/stores.ts'
import { waitFor } from '../support/wait.ts'

/**
 * Live mode through the Orange Money Web Payment adapter (issue 10), against the Orange simulator:
 * a collect is a web payment paid on Orange's page (payment_url the record's redirectUrl), its
 * unsigned notification only triggers a transactionstatus check, and the API has no payout.
 */

let sequence = 0

type GatewayFault = 'answers 500' | 'answers too late'

/**
 * Orange's API gateway as Sika meets it, in front of the simulator: every call passes through,
 * but the test can have the next webpayment answered 500 although Orange took it, or answered
 * only after the adapter's 10 s timeout. (The simulator's test numbers act on Orange's payment
 * page, after the webpayment answer, so they cannot make that answer fail.)
 */
async function startGateway(target: string, lateByMs: number) {
  const held = new Set<NodeJS.Timeout>()
  const gateway = {
    url: '',
    nextWebPayment: undefined as GatewayFault | undefined,
    close: async () => {
      for (const timer of held) clearTimeout(timer)
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    },
  }
  const pass = async (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = []
    for await (const chunk of request) chunks.push(chunk)
    const fault = request.url?.endsWith('/webpayment') ? gateway.nextWebPayment : undefined
    if (fault) gateway.nextWebPayment = undefined
    // Orange's WebPay and token calls are all POSTs.
    const answer = await fetch(`${target}${request.url}`, {
      method: 'POST',
      headers: {
        authorization: String(request.headers.authorization ?? ''),
        'content-type': String(request.headers['content-type'] ?? ''),
      },
      body: Buffer.concat(chunks),
    })
    const text = await answer.text()
    const reply = (status: number, body: string) => {
      if (!response.destroyed) response.writeHead(status, { 'content-type': 'application/json' }).end(body)
    }
    if (fault === 'answers 500') reply(500, '{"code":1,"message":"Internal error"}')
    else if (fault === 'answers too late') held.add(setTimeout(() => reply(answer.status, text), lateByMs))
    else reply(answer.status, text)
  }
  const server = createServer((request, response) => {
    pass(request, response).catch(() => response.destroy())
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  if (!address || typeof address === 'string') throw new Error('the gateway has no TCP address')
  gateway.url = `http://127.0.0.1:${address.port}`
  return gateway
}

describeEachStore('live mode: Orange Money', (store) => {
  let orange: RunningSimulator
  let gateway: Awaited<ReturnType<typeof startGateway>>
  let running: LiveApp
  let app: TestApp
  let live: ApiClient

  before(async () => {
    running = await startLiveApp(store(), async () => {
      orange = await startOrangeMoneySimulator({ settleDelayMs: 100 })
      gateway = await startGateway(orange.url, 10_500)
      const throughGateway: RunningSimulator = {
        ...orange,
        connection: (channel, countries) => ({
          ...orange.connection(channel, countries),
          baseUrl: gateway.url,
        }),
        close: async () => {
          await gateway.close()
          await orange.close()
        },
      }
      return [{ simulator: throughGateway, channel: 'orange-money', countries: ['CI', 'SN'] }]
    })
    ;({ app, live } = running)
  })
  after(() => running?.close())

  const initiate = (kind: string, amount = 5000) =>
    live.post(`/api/v1/${kind}`, {
      amount,
      channel: 'orange-money',
      country: 'CI',
      customer: { phoneNumber: '0700000123' },
      merchantReference: `orange-${sequence++}`,
      callbackUrl: 'https://merchant.example/callback',
    })

  const settled = (token: string, withinMs?: number) => settledRecord(running, 'collect', token, withinMs)

  const xofBalance = async () =>
    (await live.get('/api/v1/balance')).body.data.balances.find(
      (entry: { currency: string }) => entry.currency === 'XOF',
    ) ?? { balance: 0 }

  const eventTypesOf = async (token: string): Promise<string[]> =>
    (await live.get('/api/v1/events', { token })).body.data.events.map(
      (event: { type: string }) => event.type,
    )

  const orangeStatusOf = async (token: string) =>
    ((await (await fetch(`${orange.url}/_simulator/payments/${token}`)).json()) as { status: string }).status

  /** The webpayment calls that reached Orange for this order. */
  const webPaymentsOf = (token: string) =>
    orange.requests.filter(
      (request) => request.url.endsWith('/v1/webpayment') && JSON.parse(request.body).order_id === token,
    )

  const tokenRequests = () => orange.requests.filter((request) => request.url === '/oauth/v3/token').length

  /** An unsigned notification at the notif_url Sika gave Orange, claiming what the test likes. */
  const notify = (token: string, body: Record<string, unknown>) =>
    fetch(`${app.url}/providers/orange-money/notifications?token=${token}&role=main`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })

  /** The customer confirms on Orange's page with this number ({id} of the control path is the order_id). */
  async function payAs(token: string, msisdn: string): Promise<void> {
    const paid = await fetch(`${orange.url}/_simulator/payments/${token}/pay`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ msisdn }),
    })
    assert.ok(paid.ok, await paid.text())
  }

  test('a collect is a web payment: pending with payment_url, paid, confirmed by transactionstatus', async () => {
    const response = await initiate('collect')
    assert.equal(response.status, 200, response.text)
    const record = response.body.data.collect
    assert.equal(record.status, 'pending')
    assert.ok(record.redirectUrl?.startsWith(orange.url), 'the customer pays on Orange’s page')
    await payAs(record.token, '0700000123')
    const done = await settled(record.token)
    assert.equal(done.status, 'succeeded')
  })

  test('a declined payment is failed', async () => {
    const record = (await initiate('collect', 1000)).body.data.collect
    await payAs(record.token, '0700000101')
    const done = await settled(record.token)
    assert.equal(done.status, 'failed')
    assert.equal(done.failureReason.code, 'orange_failed')
  })

  test('a customer who confirms too late: EXPIRED is canceled, with Orange’s reason', async () => {
    const record = (await initiate('collect', 1000)).body.data.collect
    await payAs(record.token, '0700000103')
    const done = await settled(record.token)
    assert.equal(done.status, 'canceled')
    assert.equal(done.failureReason.code, 'orange_expired')
  })

  test('a notification that never comes: polling finds the payment', async () => {
    const record = (await initiate('collect', 1000)).body.data.collect
    await payAs(record.token, '0700000105')
    const done = await settled(record.token, 10_000)
    assert.equal(done.status, 'succeeded')
    assert.equal(orange.callbacks.filter((sent) => sent.url.includes(record.token)).length, 0)
  })

  test('a forged notification changes nothing', async () => {
    const record = (await initiate('collect', 1000)).body.data.collect
    const forged = await notify(record.token, { status: 'SUCCESS', notif_token: 'forged', txnid: 'MP1' })
    assert.equal(forged.status, 200)
    const now = (await live.get(`/api/v1/collect/${record.token}`)).body.data.collect
    assert.equal(now.status, 'pending', 'Orange says it is not paid')
  })

  test('an unsigned notification only triggers a transactionstatus check: Orange’s answer settles, not the body', async () => {
    const record = (await initiate('collect', 1000)).body.data.collect
    await payAs(record.token, '0700000105')
    await waitFor(
      'Orange to complete the payment',
      async () => (await orangeStatusOf(record.token)) === 'SUCCESS',
    )
    const hint = await notify(record.token, { status: 'FAILED', notif_token: 'forged', txnid: 'MP1' })
    assert.equal(hint.status, 200)
    const now = (await live.get(`/api/v1/collect/${record.token}`)).body.data.collect
    assert.equal(now.status, 'succeeded', 'what transactionstatus says')
  })

  test('the same notification twice settles once: one credit, one collect.succeeded', async () => {
    const before = (await xofBalance()).balance
    const record = (await initiate('collect')).body.data.collect
    await payAs(record.token, '0700000123')
    assert.equal((await settled(record.token)).status, 'succeeded')
    // Sika's own poll may settle it before Orange's notification has gone out.
    await waitFor('Orange to notify Sika', () =>
      orange.callbacks.some((callback) => callback.url.includes(record.token)),
    )
    const sent = orange.callbacks.find((callback) => callback.url.includes(record.token))
    assert.ok(sent, 'Orange notified Sika')
    const again = await fetch(sent.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: sent.body,
    })
    assert.equal(again.status, 200)
    assert.equal((await live.get(`/api/v1/collect/${record.token}`)).body.data.collect.status, 'succeeded')
    assert.equal((await xofBalance()).balance - before, 4925, 'credited once')
    assert.deepEqual((await eventTypesOf(record.token)).sort(), ['collect.pending', 'collect.succeeded'])
  })

  test('Orange answers the webpayment 500: pending, then resolved by polling as an error, never submitted twice', async () => {
    gateway.nextWebPayment = 'answers 500'
    const response = await initiate('collect', 1000)
    assert.equal(response.status, 200, response.text)
    const record = response.body.data.collect
    assert.equal(record.status, 'pending', 'Orange may have opened the payment')
    assert.equal(record.redirectUrl, undefined, 'but no payment page reached Sika')
    const done = await settled(record.token)
    assert.equal(done.status, 'error', 'no payment page reached the customer: nothing can have been paid')
    assert.equal(done.failureReason.code, 'operator_unavailable')
    assert.equal(webPaymentsOf(record.token).length, 1)
  })

  test('Orange answers the webpayment after the 10 s timeout: pending, then resolved by polling, never submitted twice', async () => {
    gateway.nextWebPayment = 'answers too late'
    const response = await initiate('collect', 1000)
    assert.equal(response.status, 200, response.text)
    const record = response.body.data.collect
    assert.equal(record.status, 'pending', 'no answer is no outcome')
    const done = await settled(record.token)
    assert.equal(done.status, 'error')
    assert.equal(done.failureReason.code, 'operator_unavailable')
    assert.equal(webPaymentsOf(record.token).length, 1)
  })

  test('an access token that expires mid-run is renewed once, and the payment goes through', async () => {
    const record = (await initiate('collect', 1000)).body.data.collect
    const issued = tokenRequests()
    orange.expireAccessTokens()
    await payAs(record.token, '0700000123')
    const done = await settled(record.token)
    assert.equal(done.status, 'succeeded', 'transactionstatus renewed its token and found the payment')
    assert.equal(tokenRequests(), issued + 1, 'one new token')
  })

  test('Orange Money only collects: a live disbursement is 422 channel_unavailable and writes nothing', async () => {
    const operations = async () => (await app.db.selectFrom('operations').select('token').execute()).length
    const before = await operations()
    const calls = orange.requests.length
    const payout = await initiate('disbursement', 1000)
    assert.equal(payout.status, 422, payout.text)
    assert.equal(payout.body.code, 'channel_unavailable')
    assert.equal(await operations(), before, 'no operation row')
    assert.equal(orange.requests.length, calls, 'no call to Orange')
  })

  // Recharge is a cash-in kind too (CONTRACT.md, Pricing): Orange's page can take it as it takes a collect.
  test('live channels list orange-money with only its cash-in operations, in the connected countries', async () => {
    const listed = (await live.get('/api/v1/channels')).body.data.channels.filter(
      (entry: { channel: string }) => entry.channel === 'orange-money',
    )
    assert.deepEqual(
      listed
        .map((entry: { country: string; operations: { operation: string }[] }) => ({
          country: entry.country,
          operations: entry.operations.map((operation) => operation.operation).sort(),
        }))
        .sort((a: { country: string }, b: { country: string }) => a.country.localeCompare(b.country)),
      [
        { country: 'CI', operations: ['collect', 'recharge'] },
        { country: 'SN', operations: ['collect', 'recharge'] },
      ],
    )
  })
})
