import assert from 'node:assert/strict'
import { once } from 'node:events'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { pathToFileURL } from 'node:url'
import BetterSqlite3 from 'better-sqlite3'
import { startDeliveryThread } from '../src/app/delivery-thread.ts'
import { loadConfig } from '../src/config.ts'
import { createLogger } from '../src/logger.ts'
import { migrate, openStore, type Store } from '../src/store/store.ts'
import { WriterTurns } from '../src/store/writer-turns.ts'
import { apiClient } from './support/app.ts'
import { demoCredentials, type ServiceProcess, startService } from './support/process.ts'
import { type Receiver, startReceiver } from './support/receiver.ts'
import { describeEachStore } from './support/stores.ts'
import { pollUntilDefined, sleep, waitFor } from './support/wait.ts'
import { verifyWebhook } from './support/webhooks.ts'

/**
 * DELIVERY_THREAD (README): callbacks delivered from a thread of their own, with its own store
 * connection; on a SQLite file the API's writer lets that thread's writes go first when it waits.
 */
/**
 * Two stores on one SQLite file in this process, the API's (host) and a delivery thread's (guest),
 * sharing their turns, as `sika serve` gives them with DELIVERY_THREAD=on.
 */
const turnFolders: string[] = []
after(() => {
  for (const folder of turnFolders) rmSync(folder, { recursive: true, force: true })
})
function storesTakingTurns(lockWaitMs = 2_000) {
  const folder = mkdtempSync(join(tmpdir(), 'sika-turns-'))
  turnFolders.push(folder)
  const path = join(folder, 'sika.db')
  const turns = WriterTurns.host()
  const host = openStore({ kind: 'sqlite', path }, { timeoutMs: 2_000, writerTurns: turns })
  const guest = openStore(
    { kind: 'sqlite', path },
    { timeoutMs: lockWaitMs, writerTurns: WriterTurns.guest(turns.buffer) },
  )
  return { path, turns, host, guest }
}

let marker = 0
const write = (store: Store) => store.transaction((tx) => tx.merchants.claimMarker(`m${marker++}`, 'x'))

describe('writer turns: the API lets the delivery thread take the write lock first', () => {
  test('while the guest holds the lock the host waits for its commit; the word is free after', async () => {
    const { turns, host, guest } = storesTakingTurns()
    await migrate(host)
    const order: string[] = []
    const guestDone = guest.transaction(async (tx) => {
      await tx.merchants.claimMarker('guest', 'x')
      order.push('guest wrote')
      await sleep(100)
      order.push('guest ends')
    })
    await sleep(20)
    assert.equal(turns.guestWants(), true, 'the guest holds the lock')
    await write(host)
    order.push('host wrote')
    await guestDone
    assert.deepEqual(order, ['guest wrote', 'guest ends', 'host wrote'])
    assert.equal(turns.guestWants(), false)
    await Promise.all([host.close(), guest.close()])
  })

  test('a guest transaction that fails leaves the word free once its group ends', async () => {
    const { turns, host, guest } = storesTakingTurns()
    await migrate(host)
    await assert.rejects(
      guest.transaction(async (tx) => {
        await tx.merchants.claimMarker('rolled back', 'x')
        throw new Error('the delivery failed')
      }),
      /the delivery failed/,
    )
    // The group ends a turn or two of the event loop later, however loaded the machine is.
    await pollUntilDefined(() => (turns.guestWants() ? undefined : true), 'the guest to give the word back')
    await write(guest)
    await write(host)
    assert.equal(turns.guestWants(), false)
    await Promise.all([host.close(), guest.close()])
  })

  test('a guest that gives up waiting for a lock a third connection holds leaves the word free, and the host is not held up', async () => {
    const { path, turns, host, guest } = storesTakingTurns(100)
    await migrate(host)
    const third = new BetterSqlite3(path)
    third.exec('begin immediate')
    const guestWrite = write(guest)
    await sleep(10)
    assert.equal(turns.guestWants(), true, 'the guest waits for the lock')
    const hostWrite = write(host)
    await assert.rejects(guestWrite, (error: Error) =>
      /busy|locked/i.test(`${(error as { code?: string }).code} ${error.message}`),
    )
    assert.equal(turns.guestWants(), false)
    third.exec('commit')
    third.close()
    await hostWrite
    await Promise.all([host.close(), guest.close()])
  })
})

/**
 * The thread's keeper (`startDeliveryThread`), with stand-in threads whose failures a real one
 * meets only by accident: a thread that never gets ready leaves delivery to the API's thread; one
 * that dies once ready is started again after 1 s, then 2 s; a stop while it waits starts nothing.
 * Each stand-in says it started on a BroadcastChannel, which every thread of the process hears.
 */
describe('the delivery thread fails: fallback and restarts', () => {
  const folder = mkdtempSync(join(tmpdir(), 'sika-thread-'))
  after(() => rmSync(folder, { recursive: true, force: true }))
  const standIn = (name: string, body: string) => {
    const path = join(folder, `${name}.mjs`)
    writeFileSync(
      path,
      `import { parentPort } from 'node:worker_threads'
export async function runDeliveryThread() {
  const channel = new BroadcastChannel('${name}')
  channel.postMessage('started')
  channel.close()
  ${body}
}
`,
    )
    return pathToFileURL(path).href
  }
  const starts = (name: string) => {
    const heard: number[] = []
    const channel = new BroadcastChannel(name)
    channel.onmessage = () => heard.push(performance.now())
    return { heard, close: () => channel.close() }
  }
  const logged = () => {
    const lines: { msg: string; afterMs?: number }[] = []
    const logger = createLogger('info', { write: (line: string) => void lines.push(JSON.parse(line)) })
    return { lines, logger }
  }
  const config = loadConfig({ DATABASE_URL: join(folder, 'unused.db') })

  test('a thread that never gets ready: delivery runs in the API thread, and a stop stops it', async () => {
    const entry = standIn('never-ready', `throw new Error('the store cannot be opened')`)
    const { lines, logger } = logged()
    let fallbackStopped = false
    const thread = startDeliveryThread(
      config,
      logger,
      undefined,
      () => ({
        stop: async () => {
          fallbackStopped = true
        },
      }),
      entry,
    )
    try {
      await waitFor('the fallback', () => lines.some((line) => /could not start/.test(line.msg)))
    } finally {
      await thread.stop()
    }
    assert.equal(fallbackStopped, true, 'the stop reaches the delivery that replaced the thread')
  })

  /** Starts the keeper on a stand-in that gets ready, then dies 20 ms later, every time. */
  const dying = (name: string) => {
    const entry = standIn(name, `parentPort.postMessage('ready'); setTimeout(() => process.exit(3), 20)`)
    const heard = starts(name)
    const { lines, logger } = logged()
    let fallbacks = 0
    try {
      const thread = startDeliveryThread(
        config,
        logger,
        undefined,
        () => {
          fallbacks++
          return { stop: async () => {} }
        },
        entry,
      )
      const restarts = () => lines.filter((line) => line.afterMs !== undefined).map((line) => line.afterMs)
      return { thread, heard, restarts, fallbacks: () => fallbacks }
    } catch (error) {
      heard.close()
      throw error
    }
  }

  test('a thread that dies once ready is started again after 1 s, then 2 s, then 4 s', async () => {
    const { thread, heard, restarts, fallbacks } = dying('dies')
    try {
      await waitFor('three starts', () => heard.heard.length === 3, 10_000)
      await waitFor('the third death', () => restarts().length === 3)
    } finally {
      await thread.stop()
      heard.close()
    }
    const [first, second, third] = heard.heard as [number, number, number]
    // Each gap is the wait and a thread's start, which a busy machine makes slow.
    assert.ok(second - first >= 1_000 && second - first < 2_000, `restarted after ${second - first} ms`)
    assert.ok(third - second >= 2_000 && third - second < 4_000, `then after ${third - second} ms`)
    assert.deepEqual(restarts(), [1_000, 2_000, 4_000])
    assert.equal(fallbacks(), 0, 'a thread that was ready is restarted, not replaced')
  })

  test('a stop while the keeper waits to start the thread again starts nothing', async () => {
    const { thread, heard, restarts } = dying('stopped')
    try {
      await waitFor('the first death', () => restarts().length === 1)
      await thread.stop()
      // The restart was due 1 s after the death: three leave room for a slow thread's start.
      await sleep(3_000)
      assert.equal(heard.heard.length, 1, 'nothing started after the stop')
    } finally {
      await thread.stop()
      heard.close()
    }
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
