/** CONTRACT.md, Callbacks: retried after about 1 min, 5 min, 30 min, 2 h, 6 h, 12 h, 24 h, 48 h and 72 h. */
export const retryDelaysMs = [
  60_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  6 * 3_600_000,
  12 * 3_600_000,
  24 * 3_600_000,
  48 * 3_600_000,
  72 * 3_600_000,
] as const

/** Up to ±10 %, so receivers coming back from an outage are not hit by every retry at once. */
const jitterRatio = 0.1

/** The delay before the attempt after `attemptsMade` failed ones, or undefined once the schedule is spent. */
export function nextRetryDelayMs(
  attemptsMade: number,
  random: () => number = Math.random,
): number | undefined {
  const base = retryDelaysMs[attemptsMade - 1]
  if (base === undefined) return undefined
  return Math.round(base * (1 + jitterRatio * (2 * random() - 1)))
}

/**
 * When CONTRACT.md's schedule gives an event its next attempt, counted from its creation: its
 * creation for the first, then each delay of the schedule after the one before (no jitter).
 */
export function scheduledAttemptAtUs(event: { createdAtUs: number; attempts: number }): number {
  const delaysMs = retryDelaysMs.slice(0, event.attempts).reduce((sum, delay) => sum + delay, 0)
  return event.createdAtUs + delaysMs * 1000
}
