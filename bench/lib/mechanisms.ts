import { drainOnce, type Receiver } from './callbacks.ts'
import { type Keys, type LoadResult, runOpenLoop, runWrk, writeRequests } from './load.ts'
import { scenarioRequests } from './scenarios.ts'
import { eventLoopP99Ms, type Sika, startSika } from './sika.ts'

/**
 * Each speed mechanism on and off, on the scenario it is for, in one run: the instance is started
 * with the mechanism on, then off (SPEED_MECHANISMS_OFF, or the setting that turns it off), then
 * off and on again (ABBA, so a machine drifting during the run moves both sides alike). A
 * mechanism earns its place with a gain of at least 10 % on its scenario, or by keeping a promise
 * the scenario shows (overload answered 503, not 5xx nor late).
 */
export interface Mechanism {
  readonly name: string
  readonly store: 'sqlite' | 'postgres'
  /** What switches it off, as the instance's environment. */
  readonly off: Record<string, string>
  readonly scenario:
    | 'POST collect'
    | 'details'
    | 'mix 80/20'
    | 'callbacks drain'
    | 'mix at 2x its saturating rate'
}

export const mechanisms: readonly Mechanism[] = [
  {
    name: 'group commit',
    store: 'sqlite',
    off: { SPEED_MECHANISMS_OFF: 'group-commit' },
    scenario: 'POST collect',
  },
  {
    name: 'WAL sync off the loop',
    store: 'sqlite',
    off: { SPEED_MECHANISMS_OFF: 'wal-sync' },
    scenario: 'POST collect',
  },
  {
    name: 'grouped writes',
    store: 'sqlite',
    off: { SPEED_MECHANISMS_OFF: 'grouped-writes' },
    scenario: 'callbacks drain',
  },
  {
    name: 'admission',
    store: 'sqlite',
    off: { MAX_IN_FLIGHT: '0' },
    scenario: 'mix at 2x its saturating rate',
  },
  // What it is for: a turn of the event loop that starts requests for a bounded time leaves the
  // rest of the loop (acknowledgements, reads) its turn: the mix's loop delay and p99.
  {
    name: 'request time per turn',
    store: 'sqlite',
    off: { REQUEST_TIME_PER_TURN_MS: '0' },
    scenario: 'mix 80/20',
  },
  {
    name: 'held writes',
    store: 'postgres',
    off: { SPEED_MECHANISMS_OFF: 'held-writes' },
    scenario: 'POST collect',
  },
  {
    name: 'merchant group commit',
    store: 'postgres',
    off: { SPEED_MECHANISMS_OFF: 'merchant-group-commit' },
    scenario: 'POST collect',
  },
  {
    name: 'read batches',
    store: 'postgres',
    off: { SPEED_MECHANISMS_OFF: 'read-batches' },
    scenario: 'details',
  },
  {
    name: 'grouped writes',
    store: 'postgres',
    off: { SPEED_MECHANISMS_OFF: 'grouped-writes' },
    scenario: 'callbacks drain',
  },
  {
    name: 'admission',
    store: 'postgres',
    off: { MAX_IN_FLIGHT: '0' },
    scenario: 'mix at 2x its saturating rate',
  },
]

/** One side's measurements: requests or deliveries a second, and for overload what was answered how. */
export interface SideFigures {
  perSecond: number
  p99Ms: number
  /** Closed-loop scenarios: the event loop's delay p99 during the load (less the monitor's interval). */
  loopDelayP99Ms?: number
  /** Overload only: answers 503, other 5xx, and requests never answered, as shares of those sent. */
  shed?: number
  otherErrors?: number
  unanswered?: number
}

export interface MechanismRow {
  mechanism: Mechanism
  on: SideFigures[]
  off: SideFigures[]
}

export interface MechanismRunContext {
  databaseUrl: string
  folder: string
  seconds: number
  warmupSeconds: number
  connections: number
  /** Tokens of existing collects, for the details scenario. */
  tokens: string[]
  callbackReceiver: Receiver
  callbackOperations: number
  /** ABBA rounds: 1 measures on and off once each (the smoke run), 2 measures on, off, off, on. */
  rounds: number
  /** The smoke run: only the first mechanism of each scenario in the whole run, so each path runs once. */
  sample: boolean
  tidy: () => void
  nonce: () => string
  log: (text: string) => void
}

/** Every mechanism of one store, on and off; returns the instance left running (on). */
export async function measureMechanisms(
  started: Sika,
  store: 'sqlite' | 'postgres',
  context: MechanismRunContext,
): Promise<{ sika: Sika; rows: MechanismRow[] }> {
  let sika = started
  const rows: MechanismRow[] = []
  const sampled = (candidate: Mechanism) =>
    mechanisms.find((first) => first.scenario === candidate.scenario) === candidate
  for (const mechanism of mechanisms.filter(
    (candidate) => candidate.store === store && (!context.sample || sampled(candidate)),
  )) {
    const row: MechanismRow = { mechanism, on: [], off: [] }
    const order = context.rounds >= 2 ? [true, false, false, true] : [true, false]
    for (const on of order) {
      context.log(`${store}: ${mechanism.name} ${on ? 'on' : 'off'} (${mechanism.scenario})`)
      const measured = await measureSide(sika, mechanism, on ? {} : mechanism.off, context)
      sika = measured.sika
      ;(on ? row.on : row.off).push(measured.figures)
    }
    rows.push(row)
  }
  await sika.stop()
  return { sika: await startSika(context.databaseUrl, {}, sika), rows }
}

async function measureSide(
  running: Sika,
  mechanism: Mechanism,
  environment: Record<string, string>,
  context: MechanismRunContext,
): Promise<{ sika: Sika; figures: SideFigures }> {
  if (mechanism.scenario === 'callbacks drain') {
    const drained = await drainOnce(
      running,
      { databaseUrl: context.databaseUrl, live: context.callbackReceiver, tidy: context.tidy },
      context.callbackOperations,
      { tag: context.nonce(), environment },
    )
    return { sika: drained.sika, figures: { perSecond: drained.figures.perSecond, p99Ms: Number.NaN } }
  }
  await running.stop()
  context.tidy()
  const sika = await startSika(context.databaseUrl, environment, running)
  const requestsFile = requestsFor(mechanism, context)
  const closedLoop = (seconds: number, keys: Keys) =>
    runWrk({
      baseUrl: sika.service.url,
      requestsFile,
      seconds,
      connections: context.connections,
      keys,
      nonce: context.nonce(),
    })
  if (context.warmupSeconds > 0) await closedLoop(context.warmupSeconds, sika.keys)
  if (mechanism.scenario !== 'mix at 2x its saturating rate') {
    // Read once before, so the reading after covers the measured load alone.
    await eventLoopP99Ms(sika)
    const load = await closedLoop(context.seconds, sika.keys)
    return { sika, figures: { ...figuresOf(load), loopDelayP99Ms: await eventLoopP99Ms(sika) } }
  }
  // The saturating rate is the mix's closed-loop rate on this instance, as the main overload row.
  const saturating = await closedLoop(context.seconds, sika.keys)
  const overloaded = await runOpenLoop({
    baseUrl: sika.service.url,
    requestsFile,
    seconds: context.seconds,
    perSecond: saturating.perSecond * 2,
    keys: sika.keys,
    nonce: context.nonce(),
  })
  const sent = Math.max(1, overloaded.requests + overloaded.unanswered)
  const otherErrors = Object.entries(overloaded.statuses)
    .filter(([status]) => status.startsWith('5') && status !== '503')
    .reduce((sum, [, count]) => sum + count, 0)
  return {
    sika,
    figures: {
      perSecond: overloaded.perSecond,
      p99Ms: overloaded.admittedP99Ms,
      shed: (overloaded.statuses['503'] ?? 0) / sent,
      otherErrors: otherErrors / sent,
      unanswered: overloaded.unanswered / sent,
    },
  }
}

function figuresOf(load: LoadResult): SideFigures {
  return { perSecond: load.perSecond, p99Ms: load.p99Ms }
}

function requestsFor(mechanism: Mechanism, context: MechanismRunContext): string {
  const requests = scenarioRequests(context.tokens, 0, 0, context.callbackReceiver.url)
  const lines =
    mechanism.scenario === 'POST collect'
      ? requests['POST collect']
      : mechanism.scenario === 'details'
        ? requests.details
        : requests['mix 80/20']
  return writeRequests(context.folder, `mechanism-${mechanism.scenario.replaceAll(/\W+/g, '-')}`, lines)
}
