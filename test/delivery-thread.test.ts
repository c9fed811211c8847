import assert from 'node:assert/strict'
import { once } from 'node:events'
import { after, before, describe, test } from 'node:test'
import { WriterTurns } from '../src/store/writer-turns.ts'
import { apiClient } from './support/app.ts'
import { demoCredentials, type ServiceProcess, startService } from './support/process.ts'
import { type Receiver, startReceiver } from './support/receiver.ts'
import { describeEachStore } from './support/stores.ts'
import { waitFor } from './support/wait.ts'
import { verifyWebhook } from './support/webhooks.ts'

/**
 * DELIVERY_THREAD (README): callbacks delivered from a thread of their own, with its own store
 * connection; on a SQLite file the API's writer lets that thread's writes go first when it waits.
 */
describe('writer turns: the API lets the delivery thread take the write lock first', () => {
  test('the host waits while the guest waits for the lock and holds it, and goes on once it is released', async () => {
    const host = WriterTurns.host()
    const guest = WriterTurns.guest(host.buffer)
    assert.equal(host.guestWants(), false)
    guest.waiting()
    assert.equal(host.guestWants(), true)
    const steps: string[] = []
    const given = host.giveWay(5_000).then(() => steps.push('host goes on'))
    await new Promise((resolve) => setTimeout(resolve, 20))
    guest.holding()
    steps.push('guest holds')
    await new Promise((resolve) => setTimeout(resolve, 20))
    steps.push('guest commits')
    guest.released()
    await given
    assert.deepEqual(steps, ['guest holds', 'guest commits', 'host goes on'])
    assert.equal(host.guestWants(), false)
  })

  test('a guest that never takes its turn holds the host up for the bound only', async () => {
    const host = WriterTurns.host()
    WriterTurns.guest(host.buffer).waiting()
    const started = performance.now()
    await host.giveWay(50)
    const waitedMs = performance.now() - started
    assert.ok(waitedMs >= 45 && waitedMs < 1_000, `waited ${waitedMs} ms`)
  })
})

describeEachStore(
  'sika serve with DELIVERY_THREAD=on delivers every callback, signed, and stops cleanly',
  (store) => {
    let receiver: Receiver
    let service: ServiceProcess
    before(async () => {
      receiver = await startReceiver()
      service = await startService({ DATABASE_URL: store().databaseUrl, DELIVERY_THREAD: 'on' })
    })
    after(async () => {
      await service.kill('SIGKILL')
      await receiver.close()
    })

    test('40 collects from 8 clients at once: 80 callbacks, each operation pending then succeeded', async () => {
      const demo = demoCredentials(service.output())
      const client = apiClient(service.url, { apiKey: demo.apiKey, secretKey: demo.secretKey })
      const tokens: string[] = []
      let next = 0
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          while (next < 40) {
            const i = next++
            const response = await client.post('/api/v1/collect', {
              amount: 5000,
              channel: 'orange-money',
              country: 'CI',
              customer: { fullName: 'Awa Kone', phoneNumber: '+2250700000123' },
              merchantReference: `thread-${store().name}-${i}`,
              callbackUrl: receiver.url('/callbacks'),
            })
            assert.equal(response.status, 200, JSON.stringify(response.body))
            tokens.push(response.body.data.collect.token)
          }
        }),
      )
      await waitFor('80 callbacks', () => receiver.requestsTo('/callbacks').length >= 80, 20_000)
      // Each verified with the merchant's secret, as the merchant's receiver would.
      const received = receiver
        .requestsTo('/callbacks')
        .map((request) => verifyWebhook(demo.webhookSecret, request) as any)
        .map((event) => ({ type: event.type, token: event.data.collect.token }))
      for (const token of tokens) {
        const types = received.filter((event) => event.token === token).map((event) => event.type)
        assert.deepEqual(types, ['collect.pending', 'collect.succeeded'], token)
      }
      assert.match(service.output(), /callback delivery thread started/)
      assert.doesNotMatch(service.output(), /delivery thread (failed|could not start|stopped)/)
    })

    test('SIGTERM: the thread finishes its deliveries and the process exits 0', async () => {
      const exited = once(service.child, 'exit')
      service.child.kill('SIGTERM')
      const [code] = await exited
      assert.equal(code, 0, service.output())
    })
  },
)
