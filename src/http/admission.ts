import { randomUUID } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Config } from '../config.ts'
import { ApiError } from '../errors.ts'
import { errorEnvelope } from './error-handler.ts'
import { TurnBudget } from './turn-budget.ts'

/**
 * Admission control for one instance. At most `maxInFlight` API requests are worked on at once;
 * as many more wait their turn in order, and one that has waited `admissionWaitMs` without a
 * turn, or that finds the line full, is answered 503 `unavailable` with Retry-After, having done
 * nothing. Beyond capacity a client hears "retry later" quickly instead of every request slowing
 * down together, and the requests admitted keep their latency. Probes, /metrics, the pages and the
 * operators' notifications are outside /api/v1 and never wait here.
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
 * is full already), and takes its turn once its body is in (`admitArrived`, from a preValidation
 * hook). Counted from its headers, a body trickled a byte every 2 s would hold its slot for the
 * 10 s Node gives a request to arrive, and 64 such connections of one merchant every slot: every
 * other merchant would be answered 503.
 *
 * A request admitted starts at once while the event loop's current stretch is within
 * `requestTimePerTurnMs`, and in a later check phase otherwise, behind those deferred before it
 * (turn-budget.ts).
 */
export interface RequestAdmission {
  /**
   * Passes the request on (`next`) now, or once a slot is free; answers 503 itself otherwise. A
   * request with a body is passed on at once, to be admitted once the body has arrived.
   */
  handle(request: IncomingMessage, response: ServerResponse, next: () => void): void
  /**
   * For a request whose body has arrived (the body parsed): `next` now or once a slot is free,
   * `refuse` (503 `unavailable` with Retry-After, nothing done) otherwise. A request admitted in
   * front (no body), or outside the API, goes on at once.
   */
  admitArrived(request: IncomingMessage, response: ServerResponse, next: () => void, refuse: () => void): void
}

/** What admission control tells the metrics. */
export interface RequestAdmissionObserver {
  /** A request found every slot taken: it waits in the line, or is refused at once when the line is full. */
  waited(): void
  /** A request was answered 503 after `durationMs` in the line, or at once when the line was full. */
  refused(request: IncomingMessage, durationMs: number): void
}

export function createRequestAdmission(
  config: Pick<Config, 'maxInFlight' | 'admissionWaitMs' | 'requestTimePerTurnMs'>,
  observer: RequestAdmissionObserver,
): RequestAdmission {
  const { maxInFlight, admissionWaitMs } = config
  const line = new RequestSlots(maxInFlight, config.requestTimePerTurnMs <= 0)
  const turns = new TurnBudget(config.requestTimePerTurnMs)
  const pass = (request: IncomingMessage, response: ServerResponse, next: () => void, fromLine: boolean) => {
    response.once('close', () => line.release())
    const start = startUnlessGone(request, response, next)
    // Let in together from a microtask, they go through the check phase one by one (turn-budget.ts).
    if (fromLine) turns.later(start)
    else turns.run(start)
  }
  /** A slot now, or in the line; `refused` when there is none within the wait. */
  const admit = (
    request: IncomingMessage,
    response: ServerResponse,
    next: () => void,
    refused: () => void,
  ) => {
    if (maxInFlight === 0) return turns.run(startUnlessGone(request, response, next))
    if (line.admitNow()) return pass(request, response, next, false)
    observer.waited()
    void line.turnWithin(admissionWaitMs).then((admitted) => {
      if (!admitted) return refused()
      // Its client went away while it waited: the slot goes straight back.
      if (clientGone(request, response)) return line.release()
      pass(request, response, next, true)
    })
  }
  /** API requests passed on before their body arrived: they take their turn once it has. */
  const awaitingBody = new WeakSet<IncomingMessage>()
  return {
    handle(request, response, next) {
      if (!isApiRequest(request.url)) return next()
      const started = performance.now()
      const refused = () =>
        refuse(request, response, () => observer.refused(request, performance.now() - started))
      if (!hasBody(request)) return admit(request, response, next, refused)
      // With the line full already, refused at once as cheaply as a request without a body.
      if (maxInFlight > 0 && line.isFull()) return refused()
      awaitingBody.add(request)
      next()
    },
    admitArrived(request, response, next, refused) {
      if (!awaitingBody.delete(request)) return next()
      admit(request, response, next, refused)
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

function clientGone(request: IncomingMessage, response: ServerResponse): boolean {
  return response.destroyed || request.socket.destroyed
}

function isApiRequest(url: string | undefined): boolean {
  return url !== undefined && (url.startsWith('/api/v1/') || url === '/api/v1' || url.startsWith('/api/v1?'))
}

export const atCapacity = new ApiError(
  'unavailable',
  'This instance is at capacity; nothing was done. Retry after the number of seconds in Retry-After.',
)

/** The contract's envelope, with the request id the request gave or a new one. */
function refuse(request: IncomingMessage, response: ServerResponse, counted: () => void): void {
  const requestId = acceptedRequestId(request.headers['x-request-id']) ?? randomUUID()
  const body = JSON.stringify(errorEnvelope(atCapacity, requestId))
  response.writeHead(atCapacity.status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'retry-after': '1',
    'x-request-id': requestId,
  })
  response.end(body)
  counted()
  // The body, if any, is not read: it is drained so that the connection can carry the next request.
  request.resume()
}

/** A caller's id is kept when it is short and printable, so it can be logged safely. */
export function acceptedRequestId(value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' && /^[\x21-\x7e]{1,128}$/.test(value) ? value : undefined
}

interface Waiter {
  admit(): void
}

/**
 * The slots of one instance, its waiting line, and, without a turn budget, the requests done in
 * the current turn.
 *
 * Under a turn budget those are not counted: the budget already holds a turn to its length, and
 * the requests it defers keep their slots until answered, so an overload fills the slots anyway.
 * Counting them as well would count one client twice: a request answered in a check phase would
 * keep its slot until the next, while its client's next request arrives in the poll phase in
 * between, so fewer clients than slots would still wait in the line.
 */
class RequestSlots {
  private inFlight = 0
  /** Admitted and already done since the turn began: they still fill the turn's slots. */
  private doneThisTurn = 0
  private turnEndScheduled = false
  private readonly waiting: Waiter[] = []

  constructor(
    private readonly capacity: number,
    private readonly countsTurnsDone: boolean,
  ) {}

  /** Takes a slot if one is free and nobody is waiting for it. */
  admitNow(): boolean {
    if (this.waiting.length > 0 || !this.hasFreeSlot()) return false
    this.inFlight += 1
    return true
  }

  /** Whether as many wait as there are slots: one more is refused at once. */
  isFull(): boolean {
    return this.waiting.length >= this.capacity
  }

  /** Resolves true once a slot is handed over, false after `waitMs` or at once when the line is full. */
  turnWithin(waitMs: number): Promise<boolean> {
    if (this.isFull()) return Promise.resolve(false)
    return new Promise((resolve) => {
      const waiter = {
        admit: () => {
          clearTimeout(timer)
          resolve(true)
        },
      }
      const timer = setTimeout(() => {
        const at = this.waiting.indexOf(waiter)
        if (at >= 0) this.waiting.splice(at, 1)
        resolve(false)
      }, waitMs)
      this.waiting.push(waiter)
    })
  }

  release(): void {
    this.inFlight -= 1
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
    while (this.waiting.length > 0 && this.hasFreeSlot()) {
      this.inFlight += 1
      this.waiting.shift()!.admit()
    }
  }

  private hasFreeSlot(): boolean {
    return this.inFlight + this.doneThisTurn < this.capacity
  }
}
