import assert from 'node:assert/strict'
import { once } from 'node:events'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { after, before, test } from 'node:test'
import { Webhook } from 'standardwebhooks'
import { apiClient } from '../support/app.ts'
import { demoCredentials, freePort, startService } from '../support/process.ts'
import { describeEachStore } from '../support/stores.ts'
import { waitFor } from '../support/wait.ts'

interface Received {
  id: string
  type: string
  token: string
  status: string
}

/** A merchant's callback receiver on 127.0.0.1 that verifies every signature with `standardwebhooks`. */
async function startReceiver() {
  const received: Received[] = []
  const held: ServerResponse[] = []
  let secret = ''
  let holding = false
  const server: Server = createServer((request: IncomingMessage, response) => {
    let body = ''
    request.on('data', (chunk) => {
      body += chunk
    })
    request.on('end', () => {
      const event = new Webhook(secret).verify(body, request.headers as Record<string, string>) as any
      const record = Object.values(event.data)[0] as any
      received.push({ id: event.id, type: event.type, token: record.token, status: record.status })
      if (holding) held.push(response)
      else response.end('ok')
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const address = server.address()
  if (!address || typeof address === 'string') throw new Error('no receiver address')
  return {
    url: `http://127.0.0.1:${address.port}/sika/callback`,
    received,
    useSecret: (value: string) => {
      secret = value
    },
    /** Accepts requests but never answers them, like a receiver that hangs. */
    hold: (value: boolean) => {
      holding = value
    },
    close: async () => {
      for (const response of held) response.destroy()
      server.closeAllConnections()
      server.close()
    },
  }
}

describeEachStore('a crash loses no acknowledged operation and no event', (store) => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>
  before(async () => {
    receiver = await startReceiver()
  })
  after(() => receiver.close())

  test('SIGKILL after acknowledging: after a restart every callback arrives and the pending operation settles', async () => {
    const environment = { DATABASE_URL: store().databaseUrl, SANDBOX_DELAY_MS: '1500' }
    const port = await freePort()
    // An API-only instance first (WORKERS=off), so nothing can be delivered before the kill.
    const first = await startService({ ...environment, WORKERS: 'off' }, port)
    const demo = demoCredentials(first.output())
    receiver.useSecret(demo.webhookSecret)
    const client = apiClient(first.url, demo)
    const collect = (phoneNumber: string, merchantReference: string) =>
      client.post('/api/v1/collect', {
        amount: 2500,
        channel: 'orange-money',
        country: 'CI',
        customer: { phoneNumber },
        merchantReference,
        callbackUrl: receiver.url,
      })
    const delayed = await collect('2250700000900', 'crash-delayed')
    const immediate = await collect('2250700000001', 'crash-immediate')
    assert.equal(delayed.body.data.collect.status, 'pending')
    assert.equal(immediate.body.data.collect.status, 'succeeded')
    await first.kill('SIGKILL')
    assert.equal(receiver.received.length, 0, 'nothing was delivered before the crash')

    const second = await startService(environment, port)
    try {
      const delayedToken = delayed.body.data.collect.token
      const immediateToken = immediate.body.data.collect.token
      const seen = (token: string, status: string) =>
        receiver.received.some((event) => event.token === token && event.status === status)
      await waitFor(
        'the four callbacks',
        () =>
          seen(immediateToken, 'pending') &&
          seen(immediateToken, 'succeeded') &&
          seen(delayedToken, 'pending') &&
          seen(delayedToken, 'succeeded'),
        45_000,
      )
      const details = await apiClient(second.url, demo).get(`/api/v1/collect/${delayedToken}`)
      assert.equal(details.body.data.collect.status, 'succeeded')
      assert.deepEqual(
        receiver.received.filter((event) => event.token === delayedToken).map((event) => event.type),
        ['collect.pending', 'collect.succeeded'],
      )
    } finally {
      await second.kill('SIGTERM')
    }
  })

  test('SIGKILL while a callback is in flight: another start delivers it once the claim lapses', async () => {
    receiver.received.length = 0
    receiver.hold(true)
    const environment = { DATABASE_URL: store().databaseUrl }
    const port = await freePort()
    const first = await startService(environment, port)
    // The demo merchant's secret was printed once, by the first test's first start: this test has its own merchant.
    const demo = await createMerchantKeys(store().databaseUrl)
    receiver.useSecret(demo.webhookSecret)
    const response = await apiClient(first.url, demo).post('/api/v1/collect', {
      amount: 3000,
      channel: 'orange-money',
      country: 'CI',
      customer: { phoneNumber: '2250700000002' },
      merchantReference: 'crash-in-flight',
      callbackUrl: receiver.url,
    })
    const token = response.body.data.collect.token
    await waitFor(
      'the callbacks to be in flight',
      () => receiver.received.filter((event) => event.token === token).length >= 1,
      10_000,
    )
    await first.kill('SIGKILL')
    const inFlight = new Set(
      receiver.received.filter((event) => event.token === token).map((event) => event.id),
    )

    receiver.hold(false)
    const second = await startService(environment, port)
    try {
      await waitFor(
        'the in-flight callbacks again',
        () => [...inFlight].every((id) => receiver.received.filter((event) => event.id === id).length >= 2),
        90_000,
      )
      const client = apiClient(second.url, demo)
      await waitFor(
        'both events of the operation to be marked delivered',
        async () => {
          const events = (await client.get('/api/v1/events', { token })).body.data.events as any[]
          return events.length === 2 && events.every((event) => event.deliveryStatus === 'delivered')
        },
        10_000,
      )
    } finally {
      await second.kill('SIGTERM')
    }
  })
})

/** A merchant created through the same use case as `sika merchant create`, on the service's store. */
async function createMerchantKeys(databaseUrl: string) {
  const { createContext } = await import('../../src/app/bootstrap.ts')
  const { loadConfig } = await import('../../src/config.ts')
  const { createLogger } = await import('../../src/logger.ts')
  const { createMerchant } = await import('../../src/app/merchants.ts')
  const { testSecretsKey } = await import('../support/app.ts')
  const context = await createContext(
    loadConfig({ DATABASE_URL: databaseUrl, SECRETS_KEY: testSecretsKey, LOG_LEVEL: 'silent' }),
    createLogger('silent'),
  )
  try {
    const merchant = await createMerchant(context, 'Crash test merchant')
    return { ...merchant.sandbox, webhookSecret: merchant.webhookSecret }
  } finally {
    await context.store.close()
  }
}
