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

/** 2026-11-21T10:15:30.123456Z, as the spec writes dates. */
export function formatTimestamp(timeUs: number): string {
  const millis = Math.floor(timeUs / 1000)
  const fraction = String(timeUs % 1_000_000).padStart(6, '0')
  return `${new Date(millis).toISOString().slice(0, 19)}.${fraction}Z`
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
