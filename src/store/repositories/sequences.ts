import type { Mode, OperationKind } from '../../domain/kinds.ts'
import type { RepositoryScope } from './executor.ts'
import { advanceLockedCounters, reserveCounterValues } from './pages.ts'

/** How many numbers a write takes: ledger sequences, event positions, and a list position when it opens an operation. */
export interface NumbersWanted {
  ledgerEntries: number
  events: number
  /** The kind of the operation being opened: it takes the next position of that kind's list. */
  positionOf?: OperationKind
}

/** The first number of each range reserved (position is 0 when none was wanted). */
export interface ReservedNumbers {
  ledgerEntries: number
  events: number
  position: number
}

/** An opening's list position, and then the other numbers its decision wants. */
export interface TakenPosition {
  readonly position: number
  /**
   * The ledger sequences and event positions of the decided opening, counted from the counters
   * locked with its position; one statement advances them (and the position, when it was counted
   * here too), held to ride with the next. Called once, before the opening is written.
   */
  reserve(wanted: { ledgerEntries: number; events: number }): Promise<ReservedNumbers>
}

/**
 * A write's numbers (dense per merchant and mode: their lists seek on them), reserved together in
 * one statement before anything is written with them: one round trip instead of three while the
 * counters' row locks are held, and every initiation of one merchant waits behind that lock. The
 * rows are taken in name order in that one statement, so two writes cannot deadlock on them. A
 * time read after it keeps list order, sequence order and date order in step.
 */
export interface SequencesRepository {
  reserve(merchantId: string, mode: Mode, wanted: NumbersWanted): Promise<ReservedNumbers>
  /**
   * An opening's list position, taken with the locks of the merchant's ledger and event counters
   * (in one statement, or none when this transaction holds them already), so that the opening is
   * decided once, after the lock. Only inside a transaction. `expected`: the numbers the opening
   * is likely to want (what the last opening of its sort wanted), taken in that same statement, so
   * that its reserve sends nothing when the decision wants as many; otherwise the reserve moves
   * the counters by the difference (the rows stay locked, so no one took a number in between).
   */
  takePosition(
    merchantId: string,
    mode: Mode,
    kind: OperationKind,
    expected?: Omit<NumbersWanted, 'positionOf'>,
  ): Promise<TakenPosition>
  /** As `takePosition`, for `count` openings of one kind at once: their positions follow the one given. */
  takePositions(merchantId: string, mode: Mode, kind: OperationKind, count: number): Promise<TakenPosition>
}

/**
 * `inTransaction`: the repository is a transaction's. A counter it advanced stays locked until the
 * transaction ends, so later reserves of the same counters (the next openings of a merchant's
 * group commit, `app/mechanisms/merchant-group-commit.ts`) are counted here, and the statement that advances them rides
 * with the next statement declared a carrier (write-only.ts): one round trip fewer for each opening after the first.
 */
export function sequencesRepository({ db }: RepositoryScope, inTransaction = false): SequencesRepository {
  /** The last value taken of each counter this transaction has advanced, by merchant, mode and name. */
  const lastTaken = new Map<string, number>()
  const takePositions = async (
    merchantId: string,
    mode: Mode,
    kind: OperationKind,
    count: number,
    expected: Omit<NumbersWanted, 'positionOf'> = { ledgerEntries: 0, events: 0 },
  ) => {
    if (!inTransaction) throw new Error('a position is taken inside the transaction that opens with it')
    return takePositionsWithin(db, lastTaken, { merchantId, mode, kind, count, expected })
  }
  return {
    async reserve(merchantId, mode, wanted) {
      const counts: Record<string, number> = { ledger: wanted.ledgerEntries, event: wanted.events }
      if (wanted.positionOf) {
        if (wanted.positionOf in counts)
          throw new Error(`a kind named ${wanted.positionOf} would share a counter`)
        counts[wanted.positionOf] = 1
      }
      const keyOf = (name: string) => `${merchantId}/${mode}/${name}`
      const names = Object.keys(counts).filter((name) => counts[name]! > 0)
      const known = inTransaction && names.every((name) => lastTaken.has(keyOf(name)))
      const first: Record<string, number> = known
        ? Object.fromEntries(Object.keys(counts).map((name) => [name, 0]))
        : await reserveCounterValues(db, merchantId, mode, counts)
      for (const name of names) {
        if (known) first[name] = lastTaken.get(keyOf(name))! + 1
        lastTaken.set(keyOf(name), first[name]! + counts[name]! - 1)
      }
      if (known) await advanceLockedCounters(db, merchantId, mode, counts)
      return {
        ledgerEntries: first.ledger!,
        events: first.event!,
        position: wanted.positionOf ? first[wanted.positionOf]! : 0,
      }
    },
    takePosition: (merchantId, mode, kind, expected) => takePositions(merchantId, mode, kind, 1, expected),
    takePositions: (merchantId, mode, kind, count) => takePositions(merchantId, mode, kind, count),
  }
}

/**
 * `count` list positions of one kind, with the locks of the merchant's ledger and event counters
 * (one statement, or none when the transaction holds them already: `lastTaken` knows them). The
 * statement that locks them also takes the `expected` ledger and event numbers, handed out by the
 * reserve: one statement for an opening whose decision wants what was expected (SQLite sends each
 * statement on its own, so a second would cost a whole statement of every such opening).
 */
async function takePositionsWithin(
  db: RepositoryScope['db'],
  lastTaken: Map<string, number>,
  {
    merchantId,
    mode,
    kind,
    count,
    expected,
  }: {
    merchantId: string
    mode: Mode
    kind: OperationKind
    count: number
    expected: Omit<NumbersWanted, 'positionOf'>
  },
): Promise<TakenPosition> {
  if ((['ledger', 'event'] as string[]).includes(kind))
    throw new Error(`a kind named ${kind} would share a counter`)
  const keyOf = (name: string) => `${merchantId}/${mode}/${name}`
  // Counted here when this transaction holds the counters already: the position's advance then
  // goes with the other numbers', one statement for the table (the driver holds one a table).
  const counted = ['ledger', 'event', kind].every((name) => lastTaken.has(keyOf(name)))
  // Numbers taken by the locking statement ahead of the decision, not yet handed out.
  const ahead = { ledger: 0, event: 0 }
  if (!counted) {
    ahead.ledger = expected.ledgerEntries
    ahead.event = expected.events
    const counts: Record<string, number> = { ...ahead, [kind]: count }
    const first = await reserveCounterValues(db, merchantId, mode, counts, { lockUnchanged: true })
    for (const name of Object.keys(counts)) lastTaken.set(keyOf(name), first[name]! + counts[name]! - 1)
  } else lastTaken.set(keyOf(kind), lastTaken.get(keyOf(kind))! + count)
  const position = lastTaken.get(keyOf(kind))! - count + 1
  const nextOf = (name: 'ledger' | 'event', wanted: number) => {
    const first = lastTaken.get(keyOf(name))! - ahead[name] + 1
    lastTaken.set(keyOf(name), first + wanted - 1)
    return wanted > 0 ? first : 0
  }
  return {
    position,
    reserve: async (wanted) => {
      const numbers = {
        ledgerEntries: nextOf('ledger', wanted.ledgerEntries),
        events: nextOf('event', wanted.events),
        position,
      }
      // What the decision wants beyond (or short of) what was taken ahead: nothing to send when it
      // was expected. Giving numbers back keeps them dense, as the rows are still this transaction's.
      await advanceLockedCounters(db, merchantId, mode, {
        ledger: wanted.ledgerEntries - ahead.ledger,
        event: wanted.events - ahead.event,
        [kind]: counted ? count : 0,
      })
      return numbers
    },
  }
}
