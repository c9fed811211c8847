/** Time as integer microseconds since the epoch. Passed in, so tests can move it. */
export interface Clock {
  nowUs(): number
}

/** Wall-clock time with microseconds: Date gives the epoch, the monotonic timer the fraction. */
export const systemClock: Clock = (() => {
  const originUs = Date.now() * 1000 - Math.floor(performance.now() * 1000)
  let last = 0
  return {
    nowUs() {
      const now = originUs + Math.floor(performance.now() * 1000)
      last = now > last ? now : last + 1
      return last
    },
  }
})()

/**
 * 2026-11-21T10:15:30.123456Z, as the spec writes dates. Computed from the integer alone, without
 * a Date and toISOString for every date of every record.
 */
export function formatTimestamp(timeUs: number): string {
  const seconds = Math.floor(timeUs / 1_000_000)
  const fraction = timeUs - seconds * 1_000_000
  const days = Math.floor(seconds / 86_400)
  const inDay = seconds - days * 86_400
  const hours = Math.floor(inDay / 3600)
  const minutes = Math.floor((inDay % 3600) / 60)
  return `${civilDate(days)}T${two(hours)}:${two(minutes)}:${two(inDay % 60)}.${String(fraction).padStart(6, '0')}Z`
}

const two = (value: number) => (value < 10 ? `0${value}` : String(value))

/** YYYY-MM-DD of a count of days since 1970-01-01 (Howard Hinnant's civil_from_days). */
function civilDate(daysSinceEpoch: number): string {
  const z = daysSinceEpoch + 719_468
  const era = Math.floor(z / 146_097)
  const dayOfEra = z - era * 146_097
  const yearOfEra = Math.floor(
    (dayOfEra -
      Math.floor(dayOfEra / 1460) +
      Math.floor(dayOfEra / 36_524) -
      Math.floor(dayOfEra / 146_096)) /
      365,
  )
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100))
  const shiftedMonth = Math.floor((5 * dayOfYear + 2) / 153)
  const day = dayOfYear - Math.floor((153 * shiftedMonth + 2) / 5) + 1
  const month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
  return `${String(year).padStart(4, '0')}-${two(month)}-${two(day)}`
}

/** Accepts any ISO 8601 date-time with a zone (or a plain date, as UTC midnight). */
export function parseTimestamp(text: string): number | undefined {
  const match =
    /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2})?)(?:\.(\d{1,6})\d*)?(Z|[+-]\d{2}:?\d{2}))?$/.exec(text)
  if (!match) return undefined
  const [, date = '', time, fraction = '', zone] = match
  if (time !== undefined && zone === undefined) return undefined
  // Date.parse rolls 2026-02-30 over to March 2nd: an impossible day is refused instead.
  const [year, month, day] = date.split('-').map(Number) as [number, number, number]
  const calendar = new Date(Date.UTC(year, month - 1, day))
  if (calendar.getUTCMonth() !== month - 1 || calendar.getUTCDate() !== day) return undefined
  const millis = Date.parse(time === undefined ? `${date}T00:00:00Z` : `${date}T${time}${zone}`)
  if (Number.isNaN(millis)) return undefined
  return millis * 1000 + Number(fraction.padEnd(6, '0'))
}
