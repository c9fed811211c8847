import { operationKindNames } from '../../domain/kinds.ts'
import {
  addFigures,
  dayUs,
  durationQuantileMs,
  emptyFigures,
  type HourFigures,
  hourUs,
  startOfDayUs,
  startOfHourUs,
  successRate,
} from '../../domain/operator-hours.ts'
import type { AppContext } from '../context.ts'
import { rollUpOperatorHours } from './operator-hours-roll-up.ts'

/** A pending operation older than this is shown as late. */
export const latePendingUs = 15 * 60_000_000
/** Pending live operations read at most for the late count. */
const pendingRead = 100_000
/** A roll-up older than this is run again before the overview is read (the workers run it every minute). */
const staleRollUpUs = 2 * 60_000_000

/** One window's figures for a connection. */
export interface WindowFigures {
  operations: number
  ended: number
  succeeded: number
  /** Succeeded among those that ended, 0 to 1; null when none ended. */
  successRate: number | null
  /** Time to a final status, at most (the upper bound of its duration bucket). */
  medianToFinal: { atMostMs: number; longer: boolean } | null
  p95ToFinal: { atMostMs: number; longer: boolean } | null
}

export interface DayFigures {
  /** The day's first microsecond (UTC). */
  dayUs: number
  operations: number
  successRate: number | null
}

export interface ConnectionOverview {
  channel: string
  country: string
  /** The OPERATORS_FILE connection serving it now; undefined when none does any more. */
  connectionId: string | undefined
  last24Hours: WindowFigures
  last30Days: WindowFigures
  /** Live operations through it still pending 15 minutes after their initiation. */
  pendingOver15Minutes: number
  /** Callbacks of its live operations not delivered yet. */
  callbacksWaiting: number
  /** The 30 days up to today, oldest first: for the charts and their table. */
  days: DayFigures[]
}

export interface OperatorOverview {
  atUs: number
  connections: ConnectionOverview[]
}

/**
 * The console overview: for each live channel and country, the last 24 hours and the last 30 days
 * from the hourly roll-up (`operator_hours`; hour-aligned: the current hour and the 23 before it),
 * the operations pending too long (from operations_by_status, a seek per merchant and kind), the
 * callbacks waiting (from events_due), and each day of the 30. Cost: a read of at most
 * connections x 720 roll-up rows, the pending live operations, and the undelivered events; never
 * the history.
 */
export async function readOperatorOverview(context: AppContext): Promise<OperatorOverview> {
  const atUs = context.clock.nowUs()
  const marks = await context.store.operatorHours.marks()
  if (!marks || atUs - marks.rolledAtUs > staleRollUpUs) await rollUpOperatorHours(context)
  const firstDayUs = startOfDayUs(atUs) - 29 * dayUs
  const currentHourUs = startOfHourUs(atUs)
  const [hours, pending, callbacks] = await Promise.all([
    context.store.operatorHours.readSince(Math.min(firstDayUs, currentHourUs - 719 * hourUs)),
    context.store.operatorActivity.pendingLive(operationKindNames, pendingRead),
    context.store.operatorActivity.waitingCallbacks(),
  ])
  const rows = new Map<string, ConnectionRow>()
  const rowOf = (channel: string, country: string) => {
    const key = `${channel}/${country}`
    const row = rows.get(key) ?? { channel, country, hours: [], late: 0, callbacks: 0 }
    rows.set(key, row)
    return row
  }
  for (const connection of context.providers.liveConnections())
    for (const country of connection.countries) rowOf(connection.channel, country)
  for (const hour of hours) rowOf(hour.channel, hour.country).hours.push(hour)
  for (const operation of pending)
    if (operation.initiatedAtUs < atUs - latePendingUs)
      for (const side of operation.sides) rowOf(side.channel, side.country).late++
  for (const waiting of callbacks) {
    rowOf(waiting.channel, waiting.country).callbacks += waiting.count
    if (waiting.toChannel && waiting.toCountry)
      rowOf(waiting.toChannel, waiting.toCountry).callbacks += waiting.count
  }
  const connectionOf = (channel: string, country: string) =>
    context.providers
      .liveConnections()
      .find((connection) => connection.channel === channel && connection.countries.includes(country))?.id
  return {
    atUs,
    connections: [...rows.values()].map((row) => ({
      channel: row.channel,
      country: row.country,
      connectionId: connectionOf(row.channel, row.country),
      last24Hours: windowFigures(row.hours, currentHourUs - 23 * hourUs),
      last30Days: windowFigures(row.hours, currentHourUs - 719 * hourUs),
      pendingOver15Minutes: row.late,
      callbacksWaiting: row.callbacks,
      days: Array.from({ length: 30 }, (_, index) => dayFigures(row.hours, firstDayUs + index * dayUs)),
    })),
  }
}

interface ConnectionRow {
  channel: string
  country: string
  hours: (HourFigures & { hourUs: number })[]
  late: number
  callbacks: number
}

function sumSince(
  hours: ConnectionRow['hours'],
  fromUs: number,
  toUs = Number.POSITIVE_INFINITY,
): HourFigures {
  return hours
    .filter((hour) => hour.hourUs >= fromUs && hour.hourUs < toUs)
    .reduce((total, hour) => addFigures(total, hour), emptyFigures())
}

function windowFigures(hours: ConnectionRow['hours'], fromUs: number): WindowFigures {
  const figures = sumSince(hours, fromUs)
  return {
    operations: figures.operations,
    ended: figures.ended,
    succeeded: figures.succeeded,
    successRate: successRate(figures),
    medianToFinal: durationQuantileMs(figures, 0.5),
    p95ToFinal: durationQuantileMs(figures, 0.95),
  }
}

function dayFigures(hours: ConnectionRow['hours'], dayStartUs: number): DayFigures {
  const figures = sumSince(hours, dayStartUs, dayStartUs + dayUs)
  return { dayUs: dayStartUs, operations: figures.operations, successRate: successRate(figures) }
}
