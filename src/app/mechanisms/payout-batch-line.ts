import { ApiError } from '../../errors.ts'
import type { LongWorkOwner } from './long-work-turns.ts'

/**
 * How many of a merchant's payout batches may wait, on an instance, behind the one being accepted.
 * Four let a client that sends the same batch again before its answer, or a few batches at once,
 * be answered in turn; a merchant sending more is told to slow down before its bodies are read.
 */
export const batchesWaitingPerMerchant = 4

/** Seconds a merchant refused another batch is told to wait: a batch is accepted within one. */
const batchRetryAfterSeconds = 1

/**
 * One payout batch of a merchant and mode accepted at a time on this instance; the others wait in
 * line, in the order they came, before their bodies are read (a body of up to 2 MiB costs its
 * parse, its pricing and its write: those are the merchant's to wait for, one after another, and
 * never pile up for others to wait behind). Past `batchesWaitingPerMerchant` waiting, a batch is
 * refused at once, its body unread: 429 `rate_limited` with Retry-After.
 */
export class PayoutBatchLine {
  /** merchant/mode → the starts of the batches waiting, in order; present while one is being accepted. */
  private readonly waiting = new Map<string, (() => void)[]>()

  constructor(private readonly waitingPerMerchant = batchesWaitingPerMerchant) {}

  /**
   * Resolves, in the batch's turn, with its release (once is enough, more do nothing); throws the
   * 429 when the line is full.
   */
  async enter({ merchantId, mode }: LongWorkOwner): Promise<() => void> {
    const key = `${merchantId}/${mode}`
    const line = this.waiting.get(key)
    if (line && line.length >= this.waitingPerMerchant) throw lineFull(this.waitingPerMerchant)
    if (line) await new Promise<void>((start) => line.push(start))
    else this.waiting.set(key, [])
    let released = false
    return () => {
      if (released) return
      released = true
      const next = this.waiting.get(key)?.shift()
      if (next) next()
      else this.waiting.delete(key)
    }
  }
}

function lineFull(waiting: number): ApiError {
  return new ApiError(
    'rate_limited',
    `Too many payout batches at once: one is accepted at a time per merchant and mode, and at most ${waiting} wait behind it. Retry after ${batchRetryAfterSeconds} s, once an answer has come.`,
    undefined,
    { 'retry-after': String(batchRetryAfterSeconds) },
  )
}
