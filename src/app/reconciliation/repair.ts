import type { SideRole } from '../../domain/kinds.ts'
import type { FoundBreak } from '../../domain/reconciliation.ts'
import type { SideOutcome } from '../../domain/transitions.ts'
import type { StoredBreak } from '../../store/repositories/reconciliation.ts'
import type { AppContext } from '../context.ts'
import { askSideStatus } from '../lifecycle.ts'

/** What the operator's status endpoint said of a break's side, and what Sika did with it. */
export interface RepairEvidence {
  /** true when the answer was written to the operation (its transition, postings, events, callbacks). */
  repaired: boolean
  /** The run that asked: "<connection> for <day>". */
  by: string
  askedAtUs: number
  answer: SideOutcome
}

/** A status answer the run already has for a side (`<token>.<role>`): asked while proving the day. */
export interface StatusAnswer {
  outcome: SideOutcome
  wrote: boolean
  askedAtUs: number
}

/** Only these kinds are asked of the operator's status endpoint: the others wait for a person. */
const repairable = new Set(['status_mismatch', 'missing_at_operator'])

/**
 * Whether the status answer proves the operator's side of the break: a final answer that Sika
 * wrote (a pending side settled), or one that says what Sika already holds (the operator's line
 * was wrong, or late). A pending answer, or one that contradicts a final side, proves nothing.
 */
function proves(found: FoundBreak, answer: SideOutcome, wrote: boolean, sikaStatus: string): boolean {
  if (wrote) return true
  if (answer.status === 'pending') return false
  if (found.kind === 'missing_at_operator') return answer.status === 'succeeded'
  return answer.status === sikaStatus
}

/**
 * Asks the operator's status endpoint for each repairable break's side, one side at a time per
 * `concurrency` lane, and closes what the answer proves as `auto_resolved`, the answer kept as its
 * evidence. A pending side the answer settles is written as any poll's answer is: the write
 * pipeline alone moves money. A statement line never does.
 */
export async function repairBreaks(
  context: AppContext,
  run: { connectionId: string; day: string },
  pairs: readonly { found: FoundBreak; stored: StoredBreak }[],
  answered: ReadonlyMap<string, StatusAnswer> = new Map(),
  concurrency = 4,
): Promise<void> {
  const queue = pairs.filter(
    ({ found, stored }) => repairable.has(found.kind) && found.side !== null && stored.state === 'open',
  )
  const lane = async () => {
    for (let next = queue.shift(); next !== undefined; next = queue.shift())
      await repairOne(context, run, next, answered)
  }
  await Promise.all(Array.from({ length: concurrency }, lane))
}

async function repairOne(
  context: AppContext,
  run: { connectionId: string; day: string },
  { found, stored }: { found: FoundBreak; stored: StoredBreak },
  answered: ReadonlyMap<string, StatusAnswer>,
): Promise<void> {
  const side = found.side!
  const before = await context.store.operations.findById(side.operationId)
  const sikaStatus = before?.sides.find((candidate) => candidate.role === side.role)?.status ?? 'pending'
  let askedAtUs = context.clock.nowUs()
  let asked: { outcome: SideOutcome; wrote: boolean } | undefined = answered.get(`${side.token}.${side.role}`)
  if (asked !== undefined) askedAtUs = (asked as StatusAnswer).askedAtUs
  else
    try {
      asked = await askSideStatus(context, side.operationId, side.role as SideRole)
    } catch (error) {
      context.logger.warn(
        { err: error, breakId: stored.id },
        'the reconciliation could not ask a side status',
      )
      return
    }
  if (asked === undefined || !proves(found, asked.outcome, asked.wrote, sikaStatus)) return
  const evidence: RepairEvidence = {
    repaired: asked.wrote,
    by: `${run.connectionId} for ${run.day}`,
    askedAtUs,
    answer: asked.outcome,
  }
  const nowUs = context.clock.nowUs()
  // A member who decided the break meanwhile keeps their decision: the repair then changes nothing.
  await context.store.transaction((tx) =>
    tx.reconciliation.updateBreak(
      stored.id,
      { state: 'auto_resolved', evidence: JSON.stringify(evidence), closedAtUs: nowUs },
      {
        atUs: nowUs,
        what: 'auto_resolved',
        actor: 'reconciliation',
        detail: asked.wrote
          ? `The operator's status endpoint says ${asked.outcome.status}: written to ${side.token}.`
          : `The operator's status endpoint says ${asked.outcome.status}, as Sika holds.`,
      },
    ),
  )
}
