import { parentPort, Worker } from 'node:worker_threads'
import type { Logger } from 'pino'
import type { Config } from '../config.ts'
import { systemClock } from '../domain/clock.ts'
import { deliveryTimeoutMs } from '../events/dispatcher.ts'
import { createLogger } from '../logger.ts'
import { WriterTurns } from '../store/writer-turns.ts'
import { closeContext, createContext } from './bootstrap.ts'
import { startDeliveryPool } from './workers.ts'

/**
 * The module a thread loads: in a service, the bundle of this module alone (dist/delivery-thread.mjs,
 * scripts/build.mjs), beside the service's, so that it does not load the HTTP server, its schemas
 * and the operators' adapters a second time; under the sources (tests), this module.
 */
const threadEntry = import.meta.url.endsWith('.mjs')
  ? new URL('delivery-thread.mjs', import.meta.url).href
  : import.meta.url

/**
 * What the thread runs first: it loads `entry` and calls its `runDeliveryThread`. Beside this
 * module in the sources, and beside the service's bundle in dist/, built from it under the same
 * name (scripts/build.mjs).
 */
const threadStart = new URL('./delivery-thread-start.mjs', import.meta.url)

/** What the thread starts from: the module to load (`threadEntry`), the settings, the turns' memory. */
interface ThreadData {
  entry: string
  config: Config
  turns: SharedArrayBuffer | undefined
}

interface Stoppable {
  stop(): Promise<void>
}

/** A thread that failed is started again after this, doubled at each failure in a row, up to `restartAtMostMs`. */
const restartAfterMs = 1_000
const restartAtMostMs = 30_000
/** A thread that ran this long before it failed starts a new row of failures. */
const steadyAfterMs = 60_000
/** How long a stop waits for the deliveries in flight to end and be recorded before the thread is ended. */
const stopWithinMs = 2 * deliveryTimeoutMs

/**
 * The API's side of the turns at a SQLite file's write lock, when callbacks are delivered from a
 * thread of their own (DELIVERY_THREAD=on) on that file; created before the API's store is opened.
 */
export function deliveryThreadTurns(config: Config): WriterTurns | undefined {
  return config.runWorkers && config.deliveryThread && config.database.kind === 'sqlite'
    ? WriterTurns.host()
    : undefined
}

/**
 * Callback delivery in a thread of its own (DELIVERY_THREAD=on), as a second instance beside this
 * one would run it: its own store connection and leases, the same outbox. On SQLite one thread
 * runs every statement and answers every request, and a collect's callbacks, claimed, signed, sent
 * and recorded there, take a large share of it; there the two connections take
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
  /** The module whose `runDeliveryThread` the thread runs. */
  entry: string = threadEntry,
): Stoppable {
  let stopping = false
  let worker: Worker | undefined
  let exited: Promise<void> = Promise.resolve()
  let inThisThread: Stoppable | undefined
  let failuresInARow = 0
  const start = () => {
    let readyAt: number | undefined
    const thread = new Worker(threadStart, {
      workerData: { entry, config, turns: turns?.buffer } satisfies ThreadData,
    })
    worker = thread
    exited = new Promise((resolve) => thread.once('exit', () => resolve()))
    thread.on('message', (message) => {
      if (message === 'ready') readyAt = performance.now()
    })
    thread.on('error', (error) => logger.error({ err: error }, 'the callback delivery thread failed'))
    thread.once('exit', (code) => {
      worker = undefined
      // Whatever turn it had is over: its connection closed with it.
      turns?.released()
      if (stopping) return
      if (readyAt === undefined) {
        logger.error(
          { code },
          'the callback delivery thread could not start: delivering from the main thread',
        )
        inThisThread = fallback()
        return
      }
      failuresInARow = performance.now() - readyAt >= steadyAfterMs ? 1 : failuresInARow + 1
      const afterMs = Math.min(restartAfterMs * 2 ** (failuresInARow - 1), restartAtMostMs)
      logger.error({ code, afterMs }, 'the callback delivery thread stopped: starting it again')
      setTimeout(() => stopping || start(), afterMs).unref()
    })
  }
  start()
  return {
    async stop() {
      stopping = true
      const thread = worker
      if (thread) {
        thread.postMessage('stop')
        let timer: NodeJS.Timeout | undefined
        const late = new Promise<'late'>((resolve) => {
          timer = setTimeout(() => resolve('late'), stopWithinMs)
        })
        if ((await Promise.race([exited, late])) === 'late') {
          logger.warn({ withinMs: stopWithinMs }, 'the callback delivery thread did not stop in time: ended')
          await thread.terminate()
        }
        clearTimeout(timer)
      }
      await inThisThread?.stop()
    },
  }
}

/**
 * The thread's side: a context of its own (the store opened again, without migrating it or
 * checkpointing it: the service that started the thread does both), the delivery pool, and on
 * 'stop' the deliveries in flight finished and recorded. A 'stop' that comes while it starts is
 * heard too: it then starts no pool.
 */
export async function runDeliveryThread(data: ThreadData): Promise<void> {
  const config = threadConfig(data.config)
  const logger = createLogger(config.logLevel).child({ thread: 'callbacks' })
  let stopRequested = false
  let stop = async () => {
    stopRequested = true
  }
  parentPort?.once('message', () => void stop())
  const turns = data.turns && WriterTurns.guest(data.turns)
  const context = await createContext(config, logger, systemClock, {
    writerTurns: turns,
    deliveryThread: true,
  })
  // Ready only once the store answers: on PostgreSQL nothing before this connects, and a thread
  // that cannot reach it (its second pool refused, say) is one that could not start.
  await context.store.ping(config.databaseStatementTimeoutMs)
  const pool = stopRequested ? undefined : startDeliveryPool(context)
  stop = async () => {
    try {
      await pool?.stop()
      await closeContext(context)
    } finally {
      logger.flush()
      // Kept-alive connections to receivers would hold the thread open: it is done.
      process.exit(0)
    }
  }
  if (stopRequested) return stop()
  parentPort?.postMessage('ready')
  logger.info({ concurrency: config.callbackConcurrency }, 'callback delivery thread started')
}

/** The settings as the thread receives them: a Buffer arrives as a plain Uint8Array. */
function threadConfig(config: Config): Config {
  const key = config.secretsKey
  if (key.kind !== 'value') return config
  return { ...config, secretsKey: { kind: 'value', value: Buffer.from(key.value) } }
}
