import type { Mode } from '../domain/kinds.ts'
import type { ClaimedEvent, Deferral } from '../store/repositories/outbox.ts'
import { defaultCircuitSettings } from './circuit.ts'
import {
  type Delivery,
  type Destination,
  deliverThroughCircuit,
  deliveryTimeoutMs,
  destinationOf,
  leaseMs,
  parkBacklog,
} from './dispatcher.ts'
import { FairShares } from './fair-shares.ts'
import { WakeSignal } from './wake-signal.ts'

export interface PoolSettings {
  /** The mode whose events this pool delivers: sandbox and live each have a pool of their own. */
  readonly mode: Mode
  /**
   * Deliveries in flight or being recorded at once (CALLBACK_CONCURRENCY), but those to a silent
   * endpoint; shared fairly between merchants, then between a merchant's endpoints (`FairShares`).
   */
  readonly concurrency: number
  /**
   * Requests in flight to an endpoint that has not answered yet, or whose last request failed
   * (default 4): each answer earns it one more, up to its share.
   */
  readonly firstSlots?: number
  /** How long to sleep when nothing is due (a delivery that ends wakes the pool sooner). */
  readonly idleMs: number
  /** How long to wait before claiming again after a claim whose events all went back (default 20 ms). */
  readonly givenBackPauseMs?: number
}

/** What the pool knows of one destination (a merchant's endpoint): its requests in flight, and how long one takes. */
interface EndpointLoad {
  readonly destination: Destination
  /** Requests sent and not yet answered (a delivery's record does not count). */
  inFlight: number
  /** How many it may have in flight as far as its answers go (earned by answering); its share caps it. */
  slots: number
  /** Claimed (leased to this instance) while its slots were all taken: each starts as one frees. */
  waiting: Waiting[]
  /**
   * Moving average of the durations of its requests that were answered (one that fails feeds the
   * circuit instead): an endpoint that hangs, then recovers, is not thought slow afterwards.
   */
  averageMs: number
  /** When the last event given back for want of a free slot is due again. */
  nextTurnAtUs: number
  /** When it last answered, or had nothing in flight: its requests out since then are unanswered. */
  lastHeardAtUs: number
  /** When its due backlog was last parked (`parkIfSilent`). */
  lastParkedAtUs: number
  /** When it last answered a request of this instance, 0 if it never has. */
  lastAnsweredAtUs: number
  /** Whether its silence since that answer has been logged: once a silence, not at each park. */
  silenceLogged: boolean
  /** Each of its deliveries that holds a pool slot: calling one frees that slot now. */
  slotHolders: Set<() => void>
  /** Records under way that may claim their operation's next event for it (`Delivery.takesNext`). */
  reservedForNext: number
}

interface Waiting {
  event: ClaimedEvent
  claimedAtUs: number
}

/**
 * How long a claimed event may wait here for a slot: its lease must still cover a wait for the
 * endpoint's probe (`probeWindowMs`) and a whole delivery, or another instance could claim it
 * while it is sent.
 */
const longestWaitUs = (leaseMs - defaultCircuitSettings.probeWindowMs - deliveryTimeoutMs) * 1000

interface Filled {
  claimed: number
  givenBack: number
  /** Whether the claim looked at every merchant with events pending (or needed to look at none). */
  lookedAtAll: boolean
}

/** How long the pool waits before claiming again after it had to give every event claimed back. */
const defaultGivenBackPauseMs = 20

/**
 * Slots of an endpoint not heard from yet: enough failures at once to open its circuit
 * (`failureThreshold`, 3) within one delivery timeout, and no more: a receiver that never answers
 * holds these and as many waiting events while it times out.
 */
const defaultFirstSlots = 4
/** Merchants one claim takes events of at most: the others are first in line at the next claim. */
const merchantsPerClaim = 16
/**
 * Merchants with events pending one claim looks at, at most (two index probes each): those whose
 * events are not due yet (retries, parked backlogs) pass quickly, and the next claim looks at the
 * ones after them.
 */
const merchantsLookedAt = 64
/** Claims in a row that take nothing, each looking at the next merchants, before the loop rests. */
const looksBeforeRest = 16
/**
 * How often a merchant whose endpoints known here are all full has its room claimed all the same,
 * in case some of its due events are for another endpoint (`DeliveryPool.endpointRooms`).
 */
const probeEveryUs = 100_000
/** Events wait for an endpoint only as many as it can be expected to start within this. */
const waitingHorizonMs = 100

/** The first guess for an endpoint not heard from yet. */
const initialAverageMs = 100
/** Unanswered this long at least (and four of its usual requests' time) before its backlog is parked. */
const minimumSilenceUs = 200_000
const reparkAfterUs = 1_000_000
/** How often the pool looks for silent endpoints holding its slots: each claim would read every endpoint. */
const silenceCheckEveryUs = 50_000

/** Given-back events come due again at most ten thousand a second an endpoint: more than an instance delivers. */
const shortestStepUs = 100
const smoothing = 0.3

/** Requests in flight, and none answered for `minimumSilenceUs` and four of its usual requests' time. */
function isSilent(load: EndpointLoad, nowUs: number): boolean {
  return (
    load.inFlight > 0 && nowUs - load.lastHeardAtUs >= Math.max(minimumSilenceUs, 4 * load.averageMs * 1000)
  )
}

/**
 * Callback delivery of one mode, running on its own beside scheduled work: up to `concurrency`
 * deliveries in flight or being recorded, claimed through the outbox's leases as free slots
 * appear, so several instances share the outbox without double delivery; an operation's next
 * event is claimed when its event's attempt is recorded, so its events go in order.
 *
 * The slots are shared fairly (`FairShares`): a merchant holds at most its share of them in
 * requests and waiting events; one of its endpoints has at most its part of the merchant's share
 * in flight, and as many waiting. Each claim takes the merchants with events due in turn, each
 * at most its room (`OutboxRepository.pendingMerchants`, `claimDueOf`, `FairShares.turn`): a
 * merchant at its share has nothing claimed, however long its backlog, and the claim reads none of it.
 * Within that, one endpoint has at most its slots' worth of requests in flight: `firstSlots`
 * until it answers, one more for each answer, and back to `firstSlots` when a request fails (a
 * receiver that never answers so holds 4 requests while they time out, and once silent those no
 * longer count in the pool's slots, only in its merchant's share). An event claimed for an
 * endpoint that has them all waits here, still leased, and starts as soon as one of them is
 * answered (at most as many wait as it has slots, fewer for an endpoint too slow to start them
 * within `waitingHorizonMs`, each for at most `longestWaitUs`): a busy endpoint's backlog flows
 * without a write per event. A claim takes of a merchant no more than its endpoints known here
 * can start or hold (`endpointRooms`), and a record claims its operation's next event only if the
 * endpoint has room kept for it (`reserveNext`): what is claimed is sent, not given back. Beyond
 * that, an event goes back to the outbox unsent, due again about when a slot can have freed
 * (paced on how long its requests take).
 * With the endpoint circuits (`circuit.ts`), a hanging receiver holds its first slots for one
 * timeout, then one probe now and then.
 */
export class DeliveryPool {
  /** Pool slots taken: deliveries in flight or being recorded, and events waiting for their endpoint. */
  private taken = 0
  private stopped = false
  /** Ends a pause at once when the pool stops (deliveries that end do not: they wake `signal`). */
  private readonly stopping = new WakeSignal()
  private readonly running = new Set<Promise<void>>()
  private readonly loads = new Map<string, EndpointLoad>()
  private readonly shares: FairShares
  private readonly signal = new WakeSignal()
  private readonly delivery: Delivery
  private readonly done: Promise<void>
  /** What an endpoint starts with, and falls back to after a failure. */
  private readonly firstSlots: number
  /** When `freeSilentSlots` last looked at every endpoint. */
  private silenceCheckedAtUs = 0
  /** Where the next claim's look at the merchants with events pending starts: after this one. */
  private nextLookAfter = ''
  /** Claims in a row that took nothing. */
  private emptyLooks = 0
  /** When each merchant whose known endpoints are all full last had its room claimed all the same (`endpointRooms`). */
  private readonly probedAtUs = new Map<string, number>()

  constructor(
    delivery: Delivery,
    private readonly settings: PoolSettings,
  ) {
    this.firstSlots = settings.firstSlots ?? defaultFirstSlots
    this.shares = new FairShares(settings.concurrency)
    this.delivery = delivery
    this.done = this.loop()
  }

  /** Claims nothing more, and resolves once the deliveries in flight are recorded. */
  async stop(): Promise<void> {
    this.stopped = true
    this.stopping.wake()
    this.signal.wake()
    await this.done
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      let filled: Filled = { claimed: 0, givenBack: 0, lookedAtAll: true }
      try {
        filled = await this.fill()
      } catch (error) {
        this.delivery.dependencies.logger.error({ err: error }, 'callback delivery failed; retrying')
      }
      if (this.stopped) break
      // Only events given back: what is due belongs to endpoints without a free slot. Claiming
      // again as each slot frees would give most of it back again, spending the database's CPU on
      // nothing: the next look waits a little, while their waiting events keep those slots busy.
      // Some taken too: other endpoints have room, and what was given back is due later, so the
      // next claim reaches past it at once (a dead endpoint's backlog does not pace the others).
      if (filled.givenBack > 0 && filled.givenBack === filled.claimed)
        await this.stopping.wait(this.settings.givenBackPauseMs ?? defaultGivenBackPauseMs)
      // A claim that took some may have left more due, and one that looked at only some of the
      // merchants with events pending may find due ones among the others (a few more looks at
      // once); one that took none after looking at them all, or no free slot, waits for a slot to
      // free or the next look.
      else if (this.rests(filled)) await this.signal.wait(this.settings.idleMs)
    }
    while (this.running.size > 0) await Promise.all(this.running)
  }

  /** Whether the loop waits before its next claim. */
  private rests(filled: Filled): boolean {
    if (this.taken >= this.settings.concurrency) return true
    if (filled.claimed > 0) {
      this.emptyLooks = 0
      return false
    }
    this.emptyLooks++
    if (!filled.lookedAtAll && this.emptyLooks < looksBeforeRest) return false
    this.emptyLooks = 0
    return true
  }

  /**
   * Claims due events of the merchants with room, each at most its room, as many as there are
   * free slots, and starts, holds or gives back each.
   */
  private async fill(): Promise<Filled> {
    this.freeSilentSlots(this.delivery.dependencies.clock.nowUs())
    const free = this.settings.concurrency - this.taken
    if (free <= 0) return { claimed: 0, givenBack: 0, lookedAtAll: true }
    const { dependencies, owner } = this.delivery
    const { mode } = this.settings
    const nowUs = dependencies.clock.nowUs()
    let lookedAtAll = true
    const rooms = this.endpointRooms(nowUs)
    const placeable = (merchantId: string) => rooms.get(merchantId) ?? Number.POSITIVE_INFINITY
    const claimed = await dependencies.outbox.claimTogether(async (outbox) => {
      const looked = await outbox.pendingMerchants(mode, nowUs, this.nextLookAfter, merchantsLookedAt)
      lookedAtAll = looked.length < merchantsLookedAt
      const { quotas, nextAfter } = this.shares.turn(looked, free, merchantsPerClaim, placeable)
      this.nextLookAfter = nextAfter ?? this.nextLookAfter
      return quotas.length === 0 ? [] : outbox.claimDueOf(owner, nowUs, leaseMs, mode, quotas)
    })
    const givenBack: Deferral[] = []
    for (const event of claimed) {
      const deferral = this.place(event, nowUs)
      if (deferral) givenBack.push(deferral)
    }
    // In one transaction of two statements. Left leased, such events are claimed again once their leases run out.
    if (givenBack.length > 0)
      await dependencies.outbox
        .defer(givenBack, owner)
        .catch((error) => dependencies.logger.error({ err: error }, 'could not defer callbacks'))
    return { claimed: claimed.length, givenBack: givenBack.length, lookedAtAll }
  }

  /**
   * How many events each merchant's endpoints known here can start or hold now: a claim takes no
   * more of the merchant's (`FairShares.turn`), so that what it claims is placed, not given back.
   * A merchant none of whose endpoints is known here is not in the map: its claim takes its room.
   * One whose known endpoints are all full may still have events due for another endpoint, behind
   * theirs in due order: its claim takes its room once every `probeEveryUs`, and gives back what
   * its full endpoints cannot take, at their pace, as any claim would.
   */
  private endpointRooms(nowUs: number): Map<string, number> {
    const rooms = new Map<string, number>()
    for (const load of this.loads.values()) {
      const { merchantId } = load.destination
      rooms.set(merchantId, (rooms.get(merchantId) ?? 0) + this.endpointRoomOf(load))
    }
    for (const merchantId of this.probedAtUs.keys())
      if (!rooms.has(merchantId)) this.probedAtUs.delete(merchantId)
    for (const [merchantId, room] of rooms) {
      if (room > 0 || nowUs - (this.probedAtUs.get(merchantId) ?? 0) < probeEveryUs) continue
      this.probedAtUs.set(merchantId, nowUs)
      rooms.delete(merchantId)
    }
    return rooms
  }

  private waitingRoomOf(load: EndpointLoad): number {
    return Math.max(0, this.waitingSlotsOf(load) - load.waiting.length)
  }

  /**
   * Starts the event if its merchant has room and its endpoint a free slot, holds it if the
   * endpoint has room for one more waiting; otherwise returns when to try it again.
   */
  private place(event: ClaimedEvent, nowUs: number, leasedSinceUs = nowUs): Deferral | undefined {
    const load = this.loadOf(destinationOf(event))
    const room = this.shares.roomOf(load.destination.merchantId) > 0
    if (room && load.inFlight < this.slotsOf(load)) this.start(event, load)
    else if (room && this.waitingRoomOf(load) > 0) {
      this.hold(load)
      load.waiting.push({ event, claimedAtUs: leasedSinceUs })
    } else {
      const untilUs = this.nextTurn(load, nowUs)
      if (load.destination.endpoint) this.parkIfSilent(load, nowUs)
      return { event, untilUs }
    }
    return undefined
  }

  /** Its earned slots, within its part of its merchant's share: how many requests it may have in flight. */
  private slotsOf(load: EndpointLoad): number {
    const { merchantId, key } = load.destination
    return Math.min(load.slots, this.shares.endpointShareOf(merchantId, key))
  }

  /**
   * How many claimed events may wait for the endpoint: as many as it has slots, if it answers
   * quickly enough to start them within `waitingHorizonMs`; fewer, or none, if not. An event
   * waiting for a slow endpoint would hold its merchant's share for seconds, for nothing: going
   * back to the outbox costs it nothing it needs.
   */
  private waitingSlotsOf(load: EndpointLoad): number {
    const slots = this.slotsOf(load)
    return Math.min(slots, Math.floor((slots * waitingHorizonMs) / load.averageMs))
  }

  /** A pool slot and a slot of its merchant's share, for a request or a waiting event. */
  private hold(load: EndpointLoad): void {
    this.taken++
    this.shares.take(load.destination.merchantId, load.destination.key)
  }

  /** A waiting event's slots given back: it starts, or goes back to the outbox. */
  private unhold(load: EndpointLoad): void {
    this.taken--
    this.shares.release(load.destination.merchantId, load.destination.key)
  }

  /**
   * An endpoint that has answered none of its requests for a while, with more due than it may
   * hold, would have each of its due events claimed and given back, one by one, at the others'
   * expense (before its circuit can open, a hanging receiver takes a delivery timeout): its due
   * backlog is given its turns in a statement a chunk instead, at the pace of the give-backs
   * after the last one, and again at most once a second while it stays silent.
   */
  private parkIfSilent(load: EndpointLoad, nowUs: number): void {
    if (!isSilent(load, nowUs) || nowUs - load.lastParkedAtUs < reparkAfterUs) return
    const logSilence = !load.silenceLogged
    load.silenceLogged = true
    const lastAnswerMsAgo =
      load.lastAnsweredAtUs === 0 ? null : Math.round((nowUs - load.lastAnsweredAtUs) / 1000)
    load.lastParkedAtUs = nowUs
    const stepUs = this.stepUs(load)
    const fromUs = load.nextTurnAtUs + stepUs
    const { endpoint, merchantId } = load.destination
    const parked = parkBacklog(this.delivery.dependencies, load.destination, fromUs, stepUs)
      .then((count) => {
        load.nextTurnAtUs = Math.max(load.nextTurnAtUs, fromUs + count * stepUs)
        if (!logSilence) return
        this.delivery.dependencies.logger.warn(
          { endpoint, merchantId, lastAnswerMsAgo, parked: count, everyMs: stepUs / 1000 },
          'callback endpoint not answering: its due callbacks wait their turns, one at a time',
        )
      })
      .finally(() => this.running.delete(parked))
    this.running.add(parked)
  }

  /**
   * Delivers the event. Its endpoint's slot, and its merchant's, free as soon as the endpoint has
   * answered: recording the attempt costs the endpoint nothing, and on PostgreSQL the record's
   * commit can take longer than the request, which would leave an endpoint's slots idle waiting
   * for commits. Its pool slot frees once the attempt is recorded. The operation's next event,
   * claimed with the record, is placed as any claimed event is.
   */
  private start(event: ClaimedEvent, load: EndpointLoad): void {
    const { clock, logger } = this.delivery.dependencies
    const { merchantId, key } = load.destination
    this.hold(load)
    let sending = true
    let setAside = false
    // Its endpoint went silent (`freeSilentSlots`), or its delivery is over: its pool slot frees.
    const freeSlot = () => {
      if (!load.slotHolders.delete(freeSlot)) return
      this.taken--
      // A request to a silent endpoint stays its merchant's, but no longer its endpoint's (fair-shares.ts).
      if (sending) {
        setAside = true
        this.shares.setAside(merchantId, key)
      }
      this.signal.wake()
    }
    load.slotHolders.add(freeSlot)
    if (load.inFlight === 0) load.lastHeardAtUs = clock.nowUs()
    load.inFlight++
    // The next event's lease starts with the record, after this: its wait here is counted from it.
    let sentAtUs = clock.nowUs()
    const sent = () => {
      if (!sending) return
      sending = false
      sentAtUs = clock.nowUs()
      load.inFlight--
      if (setAside) this.shares.releaseSetAside(merchantId)
      else this.shares.release(merchantId, key)
      this.startWaiting(load)
    }
    const delivery: Delivery = {
      ...this.delivery,
      attempted: (durationMs, answered) => {
        this.observe(load, durationMs, answered)
        sent()
      },
      takesNext: () => {
        reserved ||= this.reserveNext(load)
        return reserved
      },
    }
    // The room kept for the operation's next event while the record claims it.
    let reserved = false
    const unreserve = () => {
      if (reserved) load.reservedForNext--
      reserved = false
    }
    const run = deliverThroughCircuit(delivery, event)
      .then((next) => {
        unreserve()
        if (next) this.placeNext(next, sentAtUs)
      })
      .catch((error) => logger.error({ err: error }, 'callback delivery failed'))
      .finally(() => {
        unreserve()
        sent()
        // Wakes the loop, unless its endpoint's silence freed the slot already.
        freeSlot()
        this.running.delete(run)
      })
    this.running.add(run)
  }

  /**
   * Whether an event for the endpoint would be started or held now: if so, that room is kept for
   * the operation's next event, which the record claims; if not, that event is left due for a
   * later claim (`Delivery.takesNext`), not claimed only to be given back.
   */
  private reserveNext(load: EndpointLoad): boolean {
    if (this.stopped || this.shares.roomOf(load.destination.merchantId) === 0) return false
    if (this.endpointRoomOf(load) === 0) return false
    load.reservedForNext++
    return true
  }

  /** What the endpoint can start or hold now, less what the records under way may claim for it. */
  private endpointRoomOf(load: EndpointLoad): number {
    const room = Math.max(0, this.slotsOf(load) - load.inFlight) + this.waitingRoomOf(load)
    return Math.max(0, room - load.reservedForNext)
  }

  /** An operation's next event, claimed once its event was done: placed, or given back when the pool stops. */
  private placeNext(event: ClaimedEvent, leasedSinceUs: number): void {
    const nowUs = this.delivery.dependencies.clock.nowUs()
    const deferral = this.stopped ? { event, untilUs: nowUs } : this.place(event, nowUs, leasedSinceUs)
    if (deferral) this.giveBack(deferral)
  }

  /** Starts the endpoint's waiting events while it has free slots; gives back those waited too long. */
  private startWaiting(load: EndpointLoad): void {
    while (load.inFlight < this.slotsOf(load) && load.waiting.length > 0) {
      const { event, claimedAtUs } = load.waiting.shift()!
      this.unhold(load)
      const nowUs = this.delivery.dependencies.clock.nowUs()
      if (this.stopped || nowUs - claimedAtUs > longestWaitUs) this.giveBack({ event, untilUs: nowUs })
      else this.start(event, load)
    }
  }

  /**
   * An endpoint silent long enough to have its backlog parked stops taking the pool's slots: its
   * requests still in flight keep their endpoint slots (it gets no more) and their place in its
   * merchant's share (set aside: the merchant's endpoints that answer split its share without this
   * one), but no longer count in the pool's, and its waiting events go back to the outbox at its
   * next turns. Held, a dead endpoint would keep its slots from everyone else until its requests
   * time out (`deliveryTimeoutMs`): the pool's slots bound this instance's work, and a request
   * nobody answers is none. What stays bounded: an endpoint's requests in flight, to its slots,
   * and a merchant's, to its share.
   */
  private freeSilentSlots(nowUs: number): void {
    if (nowUs - this.silenceCheckedAtUs < silenceCheckEveryUs) return
    this.silenceCheckedAtUs = nowUs
    for (const load of this.loads.values()) {
      if ((load.slotHolders.size === 0 && load.waiting.length === 0) || !isSilent(load, nowUs)) continue
      for (const freeSlot of [...load.slotHolders]) freeSlot()
      const waiting = load.waiting.splice(0)
      for (const _ of waiting) this.unhold(load)
      if (waiting.length > 0)
        this.giveBack(...waiting.map(({ event }) => ({ event, untilUs: this.nextTurn(load, nowUs) })))
    }
  }

  /** Back to the outbox unsent, each due again at its `untilUs`: any instance may claim it then. */
  private giveBack(...deferrals: Deferral[]): void {
    const { dependencies, owner } = this.delivery
    const given = dependencies.outbox
      .defer(deferrals, owner)
      .catch((error) => dependencies.logger.error({ err: error }, 'could not give a callback back'))
      .finally(() => this.running.delete(given))
    this.running.add(given)
  }

  /**
   * When to try again an event whose endpoint has no free slot: one request's time (shared by
   * its slots) after the last one given back, so a backlog is spread at the pace the endpoint
   * answers, each event given back about once.
   */
  private nextTurn(load: EndpointLoad, nowUs: number): number {
    load.nextTurnAtUs = Math.max(load.nextTurnAtUs, nowUs) + this.stepUs(load)
    return load.nextTurnAtUs
  }

  /**
   * One request's time, shared by its slots: the pace its given-back events come back at. At
   * least `shortestStepUs`, which is kept small: an endpoint that answers in a millisecond with 16
   * slots takes an event every sixteenth of a millisecond, and a floor of a whole request's time
   * would hold a lone fast endpoint's backlog to a sixteenth of the pace it answers at.
   */
  private stepUs(load: EndpointLoad): number {
    return Math.max(shortestStepUs, Math.round((load.averageMs * 1000) / this.slotsOf(load)))
  }

  /** An answer earns the endpoint a slot and counts in its pace; a failure takes it back to its first slots. */
  private observe(load: EndpointLoad, durationMs: number, answered: boolean): void {
    if (!answered) {
      load.slots = this.firstSlots
      return
    }
    load.lastHeardAtUs = this.delivery.dependencies.clock.nowUs()
    load.lastAnsweredAtUs = load.lastHeardAtUs
    load.silenceLogged = false
    // Its share caps what it may use; this only keeps the count from growing without end.
    load.slots = Math.min(this.settings.concurrency, load.slots + 1)
    load.averageMs = load.averageMs * (1 - smoothing) + durationMs * smoothing
  }

  private loadOf(destination: Destination): EndpointLoad {
    let load = this.loads.get(destination.key)
    if (!load) {
      if (this.loads.size >= 4 * this.settings.concurrency) this.forgetIdle()
      load = {
        destination,
        inFlight: 0,
        slots: this.firstSlots,
        waiting: [],
        averageMs: initialAverageMs,
        nextTurnAtUs: 0,
        lastHeardAtUs: 0,
        lastParkedAtUs: 0,
        lastAnsweredAtUs: 0,
        silenceLogged: false,
        slotHolders: new Set(),
        reservedForNext: 0,
      }
      this.loads.set(destination.key, load)
    }
    return load
  }

  /** Endpoints with nothing in flight are forgotten now and then: the map stays small. */
  private forgetIdle(): void {
    for (const [key, load] of this.loads) if (load.inFlight === 0) this.loads.delete(key)
  }
}
