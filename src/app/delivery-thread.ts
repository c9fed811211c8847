import { once } from 'node:events'
import { parentPort, Worker } from 'node:worker_threads'
import type { Logger } from 'pino'
import type { Config } from '../config.ts'
import { systemClock } from '../domain/clock.ts'
import { createLogger } from '../logger.ts'
import { WriterTurns } from '../store/writer-turns.ts'
import { createContext } from './bootstrap.ts'
import { startDeliveryPool } from './workers.ts'

/** What the thread starts from: the module to load (this one, or the bundle that holds it), the settings, the turns' memory. */
interface ThreadData {
  entry: string
  config: Config
  turns: SharedArrayBuffer | undefined
}

interface Stoppable {
  stop(): Promise<void>
}

/** How long a thread that failed is given before it is started again. */
const restartAfterMs = 1000

/**
 * The API's side of the turns at a SQLite file's write lock, when callbacks are delivered from a
 * thread of their own (DELIVERY_THREAD) on that file; created before the API's store is opened.
 */
export function deliveryThreadTurns(config: Config): WriterTurns | undefined {
  return config.runWorkers && config.deliveryThread && config.database.kind === 'sqlite'
    ? WriterTurns.host()
    : undefined
}

/**
 * Callback delivery in a thread of its own (DELIVERY_THREAD=on), as a second instance beside this
 * one would run it: its own store connection and leases, the same outbox. On SQLite one thread
 * runs every statement and answers every request, and a collect's two callbacks, claimed, signed,
 * sent and recorded there, took a third of it (BENCHMARKS.md); there the two connections take
 * turns at the write lock (`turns`, store/writer-turns.ts), or the API's would hold it all the
 * time and callbacks fall behind. The thread keeps nothing the outbox does not: if it fails it is
 * started again, and the events it had claimed are claimed again once their leases run out. If it
 * cannot start at all, delivery runs in this thread instead (`fallback`).
 */
export function startDeliveryThread(
  config: Config,
  logger: Logger,
  turns: WriterTurns | undefined,
  fallback: () => Stoppable,
): Stoppable {
  let stopping = false
  let worker: Worker | undefined
  let inThisThread: Stoppable | undefined
  const start = () => {
    let ready = false
    const data: ThreadData = { entry: import.meta.url, config, turns: turns?.buffer }
    const thread = new Worker(threadSource, { eval: true, workerData: data })
    worker = thread
    thread.on('message', (message) => {
      if (message === 'ready') ready = true
    })
    thread.on('error', (error) => logger.error({ err: error }, 'the callback delivery thread failed'))
    thread.on('exit', (code) => {
      worker = undefined
      // Whatever turn it had is over: its connection closed with it.
      turns?.released()
      if (stopping) return
      if (!ready) {
        logger.error(
          { code },
          'the callback delivery thread could not start: delivering from the main thread',
        )
        inThisThread = fallback()
        return
      }
      logger.error(
        { code },
        `the callback delivery thread stopped: starting it again in ${restartAfterMs} ms`,
      )
      setTimeout(() => stopping || start(), restartAfterMs).unref()
    })
  }
  start()
  return {
    async stop() {
      stopping = true
      const thread = worker
      if (thread) {
        const exited = once(thread, 'exit')
        thread.postMessage('stop')
        await exited
      }
      await inThisThread?.stop()
    },
  }
}

/**
 * The thread's side: a context of its own (the store opened again; its migrations are applied
 * already), the delivery pool, and on 'stop' the deliveries in flight finished and recorded.
 */
export async function runDeliveryThread(data: ThreadData): Promise<void> {
  const config = threadConfig(data.config)
  const logger = createLogger(config.logLevel).child({ thread: 'callbacks' })
  const turns = data.turns && WriterTurns.guest(data.turns)
  const context = await createContext(config, logger, systemClock, turns)
  const pool = startDeliveryPool(context)
  parentPort?.once('message', async () => {
    await pool.stop()
    await context.store.close()
    // Kept-alive connections to receivers would hold the thread open: it is done.
    process.exit(0)
  })
  parentPort?.postMessage('ready')
  logger.info({ concurrency: config.callbackConcurrency }, 'callback delivery thread started')
}

/** The settings as the thread receives them: a Buffer arrives as a plain Uint8Array. */
function threadConfig(config: Config): Config {
  const key = config.secretsKey
  if (key.kind !== 'value') return config
  return { ...config, secretsKey: { kind: 'value', value: Buffer.from(key.value) } }
}

// Plain CommonJS, evaluated by the thread: it loads the module that started it (the bundle in a
// service, the source under the test runner's loader) and runs its side.
const threadSource = `
const { workerData } = require('node:worker_threads')
import(workerData.entry)
  .then((module) => module.runDeliveryThread(workerData))
  .catch((error) => setImmediate(() => { throw error }))
`
