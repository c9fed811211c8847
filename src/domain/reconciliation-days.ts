import type { StatementWindow } from './operator-lines.ts'

/**
 * A reconciliation's day is a calendar day in RECONCILIATION_TIMEZONE (UTC by default): its window
 * runs from that day's local midnight to the next, in microseconds since the epoch.
 */

const dayPattern = /^(\d{4})-(\d{2})-(\d{2})$/

/** Whether `text` is a real calendar day written YYYY-MM-DD. */
export function isDay(text: string): boolean {
  const parts = dayPattern.exec(text)
  if (!parts) return false
  const date = new Date(Date.UTC(Number(parts[1]), Number(parts[2]) - 1, Number(parts[3])))
  return date.toISOString().slice(0, 10) === text
}

/** How far `timeZone` is ahead of UTC at the instant `atMs`, in milliseconds. */
function offsetMs(timeZone: string, atMs: number): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(atMs))
  const value = (type: string) => Number(parts.find((part) => part.type === type)?.value)
  const asUtc = Date.UTC(
    value('year'),
    value('month') - 1,
    value('day'),
    value('hour'),
    value('minute'),
    value('second'),
  )
  return asUtc - Math.floor(atMs / 1000) * 1000
}

/** The instant local midnight begins `day` in `timeZone`, in milliseconds. */
function midnightMs(day: string, timeZone: string): number {
  const [year, month, date] = day.split('-').map(Number) as [number, number, number]
  const naive = Date.UTC(year, month - 1, date)
  const first = naive - offsetMs(timeZone, naive)
  return naive - offsetMs(timeZone, first)
}

/** The day after `day`, YYYY-MM-DD. */
export function nextDay(day: string): string {
  const [year, month, date] = day.split('-').map(Number) as [number, number, number]
  return new Date(Date.UTC(year, month - 1, date + 1)).toISOString().slice(0, 10)
}

export function dayWindow(day: string, timeZone: string): StatementWindow {
  return {
    startAtUs: midnightMs(day, timeZone) * 1000,
    endAtUs: midnightMs(nextDay(day), timeZone) * 1000,
  }
}

/** The day an instant falls on in `timeZone`. */
export function dayOf(atUs: number, timeZone: string): string {
  const atMs = Math.floor(atUs / 1000)
  return new Date(atMs + offsetMs(timeZone, atMs)).toISOString().slice(0, 10)
}

/** Whether `timeZone` is a zone the runtime knows (an IANA name such as Africa/Abidjan). */
export function isTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone })
    return true
  } catch {
    return false
  }
}
