import { once } from 'node:events'
import { createServer, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { CallbackFigures, DrainFigures } from './report.ts'
import { collectBody } from './scenarios.ts'
import { api, callbacksDrained, type Sika, startSika } from './sika.ts'

/**
 * Deliveries in flight while draining: one merchant's endpoint may hold a quarter of them, so the
 * default 64 gives it 16. Set here all the same, so that the report names it.
 */
export const callbackConcurrency = process.env.BENCH_CALLBACK_CONCURRENCY ?? '64'

export interface Receiver {
  url: string
  arrivals: number[]
  /** A dead receiver answers from now on, the requests it holds included, with `status`. */
  revive(status: number): void
  close(): Promise<void>
}

/** A merchant's endpoint on 127.0.0.1: answers 200 at once, or (dead) never answers at all. */
export async function receiver(dead: boolean): Promise<Receiver> {
  const arrivals: number[] = []
  const held = new Set<ServerResponse>()
  let answer: number | undefined = dead ? undefined : 200
  const server: Server = createServer((request, response) => {
    request.resume()
    request.on('end', () => {
      if (answer === undefined) {
        held.add(response)
        return
      }
      arrivals.push(performance.now())
      response.statusCode = answer
      response.end('ok')
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/callbacks`,
    arrivals,
    revive: (status) => {
      answer = status
      for (const response of held) {
        response.statusCode = status
        response.end()
      }
      held.clear()
    },
    close: async () => {
      server.closeAllConnections()
      server.close()
    },
  }
}

async function createOperations(sika: Sika, count: number, callbackUrl: (i: number) => string, tag: string) {
  let next = 0
  const worker = async () => {
    while (next < count) {
      const i = next++
      await api(sika, 'POST', '/api/v1/collect', {
        ...collectBody('123', callbackUrl(i)),
        merchantReference: `callbacks-${tag}-${i}`,
      })
    }
  }
  await Promise.all(Array.from({ length: 16 }, worker))
}

/**
 * The receiver answers every request the bench's writes make too, so events are counted from
 * when the drain starts. Events are made while no instance delivers (WORKERS=off), then one instance starts and drains
 * them: deliveries per second from the first arrival to the last. Then again with as many
 * operations for the live endpoint and half as many again for an endpoint that never answers:
 * the live endpoint's rate must not fall. The two drains alternate `callbackPairs` times, each
 * beside-dead drain with a dead endpoint of its own: one pair measured a difference that came out
 * between +1.4 % and −41 % across runs of the same code, and the alone drain always ran first.
 * `tidy` runs before each drain's delivering instance starts (PostgreSQL's vacuum).
 */
export async function measureCallbacks(
  sika: Sika,
  databaseUrl: string,
  live: Receiver,
  options: { callbackOperations: number; callbackPairs: number },
  tidy: () => void,
): Promise<{ sika: Sika; figures: CallbackFigures }> {
  let current = sika
  const drain = async (tag: string, dead: Receiver | undefined): Promise<DrainFigures> => {
    const drained = await drainOnce(current, { databaseUrl, live, tidy }, options.callbackOperations, {
      tag,
      dead,
    })
    current = drained.sika
    return drained.figures
  }
  const figures: CallbackFigures = { alone: [], besideDead: [] }
  for (let pair = 1; pair <= options.callbackPairs; pair++) {
    figures.alone.push(await drain(`alone-${pair}`, undefined))
    const dead = await receiver(true)
    try {
      figures.besideDead.push(await drain(`beside-dead-${pair}`, dead))
      // The dead endpoint's backlog would stay due for days, and each later drain and scenario
      // waits for the outbox to be drained (two minutes at most, which left the soak's process
      // idle and its heap shrunk): it answers 410 Gone now, its probe closes its circuit, and its
      // events stop.
      dead.revive(410)
      const left = await callbacksDrained(current, 60_000)
      if (left > 0)
        process.stderr.write(`bench: ${left} callbacks of the dead endpoint still due after a minute\n`)
    } finally {
      await dead.close()
    }
  }
  return { sika: current, figures }
}

/**
 * One drain: `operations` collects made while no instance delivers, then one instance (started
 * with `delivering.environment` too) delivers them; deliveries per second from the first arrival
 * to the last. Beside a dead endpoint, half as many operations again go to it, every third.
 */
export async function drainOnce(
  sika: Sika,
  { databaseUrl, live, tidy }: { databaseUrl: string; live: Receiver; tidy: () => void },
  operations: number,
  delivering: { tag: string; dead?: Receiver | undefined; environment?: Record<string, string> },
): Promise<{ sika: Sika; figures: DrainFigures }> {
  const { tag, dead } = delivering
  await sika.stop()

  let current = await startSika(databaseUrl, { WORKERS: 'off' }, sika)
  // Beside the dead endpoint, the same operations to the live one as alone, and half as many
  // again to the dead one, every third: the two drains deliver as many events, so their
  // first, unoptimised second weighs the same in both.
  const toDead = (i: number) => dead !== undefined && i % 3 === 2
  const count = dead ? Math.floor((3 * operations) / 2) : operations
  await createOperations(current, count, (i) => (toDead(i) ? dead!.url : live.url), tag)
  let liveOperations = 0
  for (let i = 0; i < count; i++) if (!toDead(i)) liveOperations++
  const expected = live.arrivals.length + 2 * liveOperations
  const first = live.arrivals.length
  await current.stop()
  tidy()
  current = await startSika(
    databaseUrl,
    { CALLBACK_CONCURRENCY: callbackConcurrency, ...delivering.environment },
    current,
  )
  const deadline = performance.now() + 120_000
  while (live.arrivals.length < expected && performance.now() < deadline)
    await new Promise((r) => setTimeout(r, 50))
  const window = live.arrivals.slice(first)
  const seconds = ((window.at(-1) ?? 0) - (window[0] ?? 0)) / 1000
  return {
    sika: current,
    figures: {
      deliveries: window.length,
      expected: expected - first,
      seconds,
      perSecond: window.length / Math.max(seconds, 0.001),
    },
  }
}
