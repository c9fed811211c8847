import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Config } from '../config.ts'
import { ApiError } from '../errors.ts'
import { answerAtEdge, clientGone, isApiRequest } from './edge-answer.ts'
import { TurnBudget } from './turn-budget.ts'

/**
 * Admission control for one instance. At most `maxInFlight` API requests are worked on at once;
 * as many more wait their turn, and one that has waited `admissionWaitMs` without a turn, or that
 * finds no place in the line, is answered 503 `unavailable` with Retry-After, having done nothing.
 * Beyond capacity a client hears "retry later" quickly instead of every request slowing down
 * together, and the requests admitted keep their latency. Probes, /metrics, the pages and the
 * operators' notifications are outside /api/v1 and never wait here.
 *
 * Each request has an owner (front-door.ts: its merchant, once its key is proven, or its address),
 * and the slots and the line are shared fairly between owners (FairSlots): a slot given back goes
 * to the waiting owner holding the fewest, and a full line makes room for an owner holding fewer
 * places in it than another. One merchant's burst then never turns another's request into a 503.
 *
 * Without a turn budget, "at once" counts the requests of one turn of the event loop, not only
 * those still awaiting something: a request answered without waiting for I/O (a read on SQLite) is
 * done before the next one starts, yet every request read in the same turn waited behind it.
 * Counting only those awaiting I/O, an overloaded SQLite instance would never have a request in
 * flight: the line would form in the kernel's socket queues, where nothing can see or shorten it,
 * and latency would grow without bound. Under a budget, the requests it defers to later turns are
 * the ones in flight.
 *
 * It runs in front of Fastify, on the server's own request event: a refusal must cost far less
 * than an answer, or refusing half the requests of an overload leaves no time to answer the other
 * half. Fastify's hooks would make a 503 cost a good part of a whole read; here it is a fixed body
 * written at once.
 *
 * A request counts from the moment its body has arrived. One without a body is admitted there;
 * one with a body goes on to be read and parsed without a slot (refused at once only if the line
 * has no place for it already), and takes its turn once its body is in (`admitArrived`, from a
 * preValidation hook). Counted from its headers, a body trickled a byte every 2 s would hold its
 * slot for the 10 s Node gives a request to arrive, and 64 such connections of one merchant every
 * slot: every other merchant would be answered 503.
 *
 * A request admitted starts at once while the event loop's current stretch is within
 * `requestTimePerTurnMs`, and in a later check phase otherwise, behind those deferred before it
 * (turn-budget.ts).
 */
export interface RequestAdmission {
  /**
   * Passes the request of `owner` on (`next`) now, or once a slot is free; answers 503 itself
   * otherwise. A request with a body is passed on at once, to be admitted once the body has arrived.
   */
  handle(request: IncomingMessage, response: ServerResponse, owner: string, next: () => void): void
  /**
   * For a request whose body has arrived (the body parsed): `next` now or once a slot is free,
   * `refuse` (503 `unavailable` with Retry-After, nothing done) otherwise. A request admitted in
   * front (no body), or outside the API, goes on at once.
   */
  admitArrived(request: IncomingMessage, response: ServerResponse, next: () => void, refuse: () => void): void
}

/** What admission control tells the metrics. */
export interface RequestAdmissionObserver {
  /** A request found every slot taken: it waits in the line, or is refused at once when the line has no place. */
  waited(): void
  /** A request was answered 503 after `durationMs` in the line, or at once when the line had no place. */
  refused(request: IncomingMessage, durationMs: number): void
}

export function createRequestAdmission(
  config: Pick<Config, 'maxInFlight' | 'admissionWaitMs' | 'requestTimePerTurnMs'>,
  observer: RequestAdmissionObserver,
): RequestAdmission {
  const { maxInFlight, admissionWaitMs } = config
  const slots = new FairSlots(maxInFlight, config.requestTimePerTurnMs <= 0)
  const turns = new TurnBudget(config.requestTimePerTurnMs)
  const pass = (
    request: IncomingMessage,
    response: ServerResponse,
    owner: string,
    next: () => void,
    fromLine: boolean,
  ) => {
    response.once('close', () => slots.release(owner))
    const start = startUnlessGone(request, response, next)
    // Let in together from a microtask, they go through the check phase one by one (turn-budget.ts).
    if (fromLine) turns.later(start)
    else turns.run(start)
  }
  /** A slot now, or in the line; `refused` when there is none within the wait. */
  const admit = (
    request: IncomingMessage,
    response: ServerResponse,
    owner: string,
    next: () => void,
    refused: () => void,
  ) => {
    if (maxInFlight === 0) return turns.run(startUnlessGone(request, response, next))
    if (slots.admitNow(owner)) return pass(request, response, owner, next, false)
    observer.waited()
    void slots.turnWithin(owner, admissionWaitMs).then((admitted) => {
      if (!admitted) return refused()
      // Its client went away while it waited: the slot goes straight back.
      if (clientGone(request, response)) return slots.release(owner)
      pass(request, response, owner, next, true)
    })
  }
  /** API requests passed on before their body arrived, and their owners: they take their turn once it has. */
  const awaitingBody = new WeakMap<IncomingMessage, string>()
  return {
    handle(request, response, owner, next) {
      if (!isApiRequest(request.url)) return next()
      const started = performance.now()
      const refused = () =>
        refuse(request, response, () => observer.refused(request, performance.now() - started))
      if (!hasBody(request)) return admit(request, response, owner, next, refused)
      // With no place in the line already, refused at once as cheaply as a request without a body.
      if (maxInFlight > 0 && slots.refusesAtOnce(owner)) return refused()
      awaitingBody.set(request, owner)
      next()
    },
    admitArrived(request, response, next, refused) {
      const owner = awaitingBody.get(request)
      if (owner === undefined) return next()
      awaitingBody.delete(request)
      admit(request, response, owner, next, refused)
    },
  }
}

/** A request whose headers announce a body: it has not arrived with them, and may take long to. */
function hasBody(request: IncomingMessage): boolean {
  const length = request.headers['content-length']
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0')
}

/** A request held for a later turn whose client went away is not started: nobody would hear its answer. */
function startUnlessGone(request: IncomingMessage, response: ServerResponse, next: () => void): () => void {
  return () => {
    if (!clientGone(request, response)) next()
  }
}

export const atCapacity = new ApiError(
  'unavailable',
  'This instance is at capacity; nothing was done. Retry after the number of seconds in Retry-After.',
  undefined,
  { 'retry-after': '1' },
)

function refuse(request: IncomingMessage, response: ServerResponse, counted: () => void): void {
  answerAtEdge(request, response, atCapacity)
  counted()
}

interface Waiter {
  readonly owner: string
  /** Its place in arrival order, among every owner's waiters. */
  readonly arrival: number
  admit(): void
  /** Given up for a waiter of an owner holding fewer places in the line. */
  displace(): void
}

/**
 * The slots of one instance, its waiting line, and, without a turn budget, the requests done in
 * the current turn, shared fairly between the requests' owners (a merchant, or the address of a
 * request whose key is not proven yet).
 *
 * Nobody waits while a slot is free, whoever takes it. Once every slot is taken, each slot given
 * back goes to the waiting owner holding the fewest slots (the earliest waiter first among
 * equals), so an owner over its share takes no slot while another waits: its requests end,
 * nobody's are cut short. A full line makes room for an owner holding fewer places in it than
 * another by more than one: that other's newest waiter is answered 503. So one owner's burst
 * holds at most its share of the slots and of the line whenever others have requests, and only a
 * line full of many owners' requests refuses anyone else.
 *
 * Under a turn budget the requests done this turn are not counted: the budget already holds a
 * turn to its length, and the requests it defers keep their slots until answered, so an overload
 * fills the slots anyway. Counting them as well would count one client twice: a request answered
 * in a check phase would keep its slot until the next, while its client's next request arrives in
 * the poll phase in between, so fewer clients than slots would still wait in the line.
 */
class FairSlots {
  private inFlight = 0
  /** Admitted and already done since the turn began: they still fill the turn's slots. */
  private doneThisTurn = 0
  private turnEndScheduled = false
  /** The slots each owner holds; only owners holding any. */
  private readonly held = new Map<string, number>()
  /** Each owner's waiters, oldest first; only owners with any. */
  private readonly lines = new Map<string, Waiter[]>()
  private waiting = 0
  private arrivals = 0

  constructor(
    private readonly capacity: number,
    private readonly countsTurnsDone: boolean,
  ) {}

  /** Takes a slot for `owner` if one is free and nobody is waiting for it. */
  admitNow(owner: string): boolean {
    if (this.waiting > 0 || !this.hasFreeSlot()) return false
    this.take(owner)
    return true
  }

  /** Whether a request of `owner` would find no place in the line: it is full, and nobody holds more of it than the owner and one. */
  refusesAtOnce(owner: string): boolean {
    return this.waiting >= this.capacity && this.longestLineOver(owner) === undefined
  }

  /** Resolves true once a slot is handed over, false after `waitMs`, when displaced, or at once when no place is left. */
  turnWithin(owner: string, waitMs: number): Promise<boolean> {
    if (this.waiting >= this.capacity) {
      const longest = this.longestLineOver(owner)
      if (!longest) return Promise.resolve(false)
      this.leaveLine(longest.at(-1)!).displace()
    }
    return new Promise((resolve) => {
      const answer = (admitted: boolean) => () => {
        clearTimeout(timer)
        resolve(admitted)
      }
      const waiter: Waiter = { owner, arrival: this.arrivals++, admit: answer(true), displace: answer(false) }
      const timer = setTimeout(() => {
        this.leaveLine(waiter)
        resolve(false)
      }, waitMs)
      const line = this.lines.get(owner)
      if (line) line.push(waiter)
      else this.lines.set(owner, [waiter])
      this.waiting += 1
    })
  }

  release(owner: string): void {
    this.inFlight -= 1
    const holds = (this.held.get(owner) ?? 1) - 1
    if (holds > 0) this.held.set(owner, holds)
    else this.held.delete(owner)
    if (!this.countsTurnsDone) {
      this.admitWaiting()
      return
    }
    this.doneThisTurn += 1
    if (!this.turnEndScheduled) {
      this.turnEndScheduled = true
      // The check phase follows the poll phase that read this turn's requests.
      setImmediate(() => this.endTurn())
    }
    this.admitWaiting()
  }

  private endTurn(): void {
    this.turnEndScheduled = false
    this.doneThisTurn = 0
    this.admitWaiting()
  }

  private admitWaiting(): void {
    while (this.waiting > 0 && this.hasFreeSlot()) {
      const waiter = this.leaveLine(this.nextWaiter())
      this.take(waiter.owner)
      waiter.admit()
    }
  }

  /** The first waiter of the owner holding the fewest slots; among equals, the one that came first. */
  private nextWaiter(): Waiter {
    let next: Waiter | undefined
    let fewest = Number.POSITIVE_INFINITY
    for (const [owner, line] of this.lines) {
      const holds = this.held.get(owner) ?? 0
      const first = line[0]!
      if (holds < fewest || (holds === fewest && first.arrival < next!.arrival)) {
        next = first
        fewest = holds
      }
    }
    return next!
  }

  /** The line of the owner with the most waiters, when that is more than `owner`'s and one. */
  private longestLineOver(owner: string): Waiter[] | undefined {
    const own = this.lines.get(owner)?.length ?? 0
    let longest: Waiter[] | undefined
    for (const line of this.lines.values())
      if (line.length > own + 1 && line.length > (longest?.length ?? 0)) longest = line
    return longest
  }

  private leaveLine(waiter: Waiter): Waiter {
    const line = this.lines.get(waiter.owner)
    const at = line?.indexOf(waiter) ?? -1
    if (!line || at < 0) return waiter
    line.splice(at, 1)
    if (line.length === 0) this.lines.delete(waiter.owner)
    this.waiting -= 1
    return waiter
  }

  private take(owner: string): void {
    this.inFlight += 1
    this.held.set(owner, (this.held.get(owner) ?? 0) + 1)
  }

  private hasFreeSlot(): boolean {
    return this.inFlight + this.doneThisTurn < this.capacity
  }
}
