/**
 * How the console overview counts what each operator connection carried: per hour, the live
 * operations initiated, how many ended and succeeded, and how long those that ended took to their
 * final status, in fixed buckets (so hours add up and percentiles need no list of durations).
 */

/** The upper bounds of the duration buckets, in milliseconds; a last bucket holds everything longer. */
export const durationBucketsMs = [
  1_000, 2_000, 5_000, 10_000, 20_000, 30_000, 60_000, 120_000, 300_000, 600_000, 900_000, 1_800_000,
  3_600_000, 7_200_000, 21_600_000, 86_400_000,
] as const

/** What one connection carried in one hour, or in several hours added together. */
export interface HourFigures {
  operations: number
  succeeded: number
  ended: number
  /** `durationBucketsMs.length + 1` counts. */
  endedByDuration: number[]
}

export const emptyFigures = (): HourFigures => ({
  operations: 0,
  succeeded: 0,
  ended: 0,
  endedByDuration: new Array(durationBucketsMs.length + 1).fill(0),
})

export function bucketOf(durationMs: number): number {
  const index = durationBucketsMs.findIndex((bound) => durationMs <= bound)
  return index === -1 ? durationBucketsMs.length : index
}

export function addFigures(total: HourFigures, more: HourFigures): HourFigures {
  return {
    operations: total.operations + more.operations,
    succeeded: total.succeeded + more.succeeded,
    ended: total.ended + more.ended,
    endedByDuration: total.endedByDuration.map((count, index) => count + (more.endedByDuration[index] ?? 0)),
  }
}

/** Succeeded among those that ended, 0 to 1; null when none ended. */
export function successRate(figures: HourFigures): number | null {
  return figures.ended === 0 ? null : figures.succeeded / figures.ended
}

/**
 * The duration under which the fraction `quantile` of ended operations fell, as the upper bound
 * of the bucket where it lies (at most that long): null when none ended; for the last, open
 * bucket, the last bound with `longer` true.
 */
export function durationQuantileMs(
  figures: HourFigures,
  quantile: number,
): { atMostMs: number; longer: boolean } | null {
  if (figures.ended === 0) return null
  const rank = Math.ceil(quantile * figures.ended)
  let seen = 0
  for (const [index, count] of figures.endedByDuration.entries()) {
    seen += count
    if (seen >= rank) {
      const bound = durationBucketsMs[index]
      return bound === undefined
        ? { atMostMs: durationBucketsMs.at(-1)!, longer: true }
        : { atMostMs: bound, longer: false }
    }
  }
  return { atMostMs: durationBucketsMs.at(-1)!, longer: true }
}

export const hourUs = 3_600_000_000
export const dayUs = 24 * hourUs

export const startOfHourUs = (atUs: number) => Math.floor(atUs / hourUs) * hourUs
export const startOfDayUs = (atUs: number) => Math.floor(atUs / dayUs) * dayUs
