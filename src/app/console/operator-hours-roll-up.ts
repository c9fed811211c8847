import { dayUs, emptyFigures, type HourFigures, hourUs, startOfHourUs } from '../../domain/operator-hours.ts'
import type { HourCount, SavedHour } from '../../store/repositories/operator-hours.ts'
import { idDateSlackUs } from '../../store/repositories/platform-search.ts'
import type { AppContext } from '../context.ts'

/** Ids of operations counted per statement: each a few tens of milliseconds on either store. */
const idsPerStatement = 20_000

const running = new WeakMap<AppContext, Promise<void>>()

/**
 * Counts the live operations of the hours not yet counted for good into `operator_hours`: at the
 * first run the last 30 days, then each run the hours from the last one's `finalBeforeUs`, which
 * is an hour before the oldest operation that could still change (OPERATION_TTL, and an hour
 * for late answers). It reads the operations by ranges of their primary key, found from the
 * date by a binary search (ids follow dates), `idsPerStatement` at a time, so it never holds the
 * loop or a connection long, and writes nothing in any operation's transaction: the write path
 * pays nothing for it. Several instances may run it at once: each writes the same counts.
 */
export function rollUpOperatorHours(context: AppContext): Promise<void> {
  const inFlight = running.get(context)
  if (inFlight) return inFlight
  const run = rollUp(context).finally(() => running.delete(context))
  running.set(context, run)
  return run
}

async function rollUp(context: AppContext): Promise<void> {
  const { operatorHours, platformSearch } = context.store
  const nowUs = context.clock.nowUs()
  const marks = await operatorHours.marks()
  const fromUs = marks?.finalBeforeUs ?? startOfHourUs(nowUs - 30 * dayUs)
  const lastBefore = await platformSearch.lastIdBefore(fromUs - idDateSlackUs)
  const toId = (await operatorHours.largestId()) + 1
  const counts: HourCount[] = []
  for (let fromId = (lastBefore ?? 0) + 1; fromId < toId; fromId += idsPerStatement)
    counts.push(
      ...(await operatorHours.countRange({ fromId, toId: Math.min(toId, fromId + idsPerStatement), fromUs })),
    )
  await operatorHours.save(hoursOf(counts))
  const stillMovingUs = context.config.operationTtlMs * 1000 + hourUs
  await operatorHours.setMarks({
    finalBeforeUs: Math.max(fromUs, startOfHourUs(nowUs - stillMovingUs)),
    rolledAtUs: nowUs,
  })
}

function hoursOf(counts: readonly HourCount[]): SavedHour[] {
  const hours = new Map<string, SavedHour>()
  for (const count of counts) {
    const key = `${count.hourUs}/${count.channel}/${count.country}`
    const hour = hours.get(key) ?? {
      channel: count.channel,
      country: count.country,
      hourUs: count.hourUs,
      ...emptyFigures(),
    }
    hours.set(key, add(hour, count))
  }
  return [...hours.values()]
}

function add<T extends HourFigures>(hour: T, count: HourCount): T {
  const ended = count.status !== 'pending'
  const endedByDuration = [...hour.endedByDuration]
  if (ended) endedByDuration[Math.max(0, count.bucket)]! += count.count
  return {
    ...hour,
    operations: hour.operations + count.count,
    ended: hour.ended + (ended ? count.count : 0),
    succeeded: hour.succeeded + (count.status === 'succeeded' ? count.count : 0),
    endedByDuration,
  }
}

/**
 * Runs the roll-up unless some instance ran it less than `freshMs` ago (its marks say when): the
 * instances of a deployment share the minute's run rather than each counting the same hours. Two
 * that start at the same moment both run it, which is harmless: a run is idempotent.
 */
export async function rollUpUnlessRecent(context: AppContext, freshMs: number): Promise<boolean> {
  const marks = await context.store.operatorHours.marks()
  if (marks && context.clock.nowUs() - marks.rolledAtUs < freshMs * 1000) return false
  await rollUpOperatorHours(context)
  return true
}

/**
 * Runs the roll-up about once a minute across the deployment, so the overview reads counted hours
 * (it runs the roll-up itself only when the last run is over two minutes old). A per-instance
 * timer that skips a minute another instance has just counted, rather than scheduled work: a run
 * is idempotent, and the marks it leaves are the only coordination it needs.
 */
export function watchOperatorHours(context: AppContext, everyMs = 60_000): { stop(): void } {
  const run = () => {
    rollUpUnlessRecent(context, everyMs - 5000).catch((error: unknown) =>
      context.logger.warn({ err: error }, 'the operator hours roll-up failed; the next minute tries again'),
    )
  }
  const timer = setInterval(run, everyMs)
  timer.unref()
  return { stop: () => clearInterval(timer) }
}
