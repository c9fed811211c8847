import { initiationAnswer, refuse } from './answers.ts'
import { checkInitiationObject, type InitiationBody } from './bodies.ts'
import { technical } from './errors.ts'
import { type Checked, isObject } from './fields.ts'
import { type Exchange, sendJson } from './http-io.ts'
import { type Admission, admit } from './initiate.ts'
import type { OperationSpec } from './operations.ts'
import type { SimulatorState } from './state.ts'

function parseArray(raw: string): unknown[] | undefined {
  try {
    const parsed: unknown = JSON.parse(raw)
    return Array.isArray(parsed) ? parsed : undefined
  } catch {
    return undefined
  }
}

/** The payout requests, each checked as POST /v2/payouts checks its body. */
function checkItems(parsed: unknown[], spec: OperationSpec, largest: number): Checked<InitiationBody[]> {
  if (parsed.length > largest) return { refusal: technical.bulkTooLarge(parsed.length, largest) }
  const items: InitiationBody[] = []
  for (const [index, item] of parsed.entries()) {
    const checked = isObject(item) ? checkInitiationObject(item, spec) : { refusal: technical.invalidInput() }
    if (checked.refusal) return { refusal: technical.inBulkItem(index, checked.refusal) }
    items.push(checked.value)
  }
  return { value: items }
}

/** One item's answer: `{payoutId, status, created}`, or `{payoutId, status: "REJECTED", failureReason}`. */
function itemAnswer(spec: OperationSpec, admission: Admission) {
  if (admission.status !== 'REJECTED') return initiationAnswer(admission.payment, admission.status)
  return { [spec.idField]: admission.id, status: 'REJECTED', failureReason: { ...admission.refusal.reason } }
}

/**
 * POST /v2/payouts/bulk (D-BULK, PP-KIT): an array of payout requests answered by an array, one
 * answer per item in the same order, each ACCEPTED, DUPLICATE_IGNORED or REJECTED on its own. More
 * than `largestBulk` items, a body that is no array, or an item of the wrong shape is a 400 for the
 * whole request, and nothing is created (the simulator's choice: SOURCES.md). The test numbers act
 * on the whole answer: an accepted 106 makes it a 500 UNKNOWN_ERROR, a 107 holds it for hangMs,
 * the payouts being stored either way.
 */
export function initiateBulk(spec: OperationSpec) {
  return (state: SimulatorState, { response, body }: Exchange) => {
    const parsed = parseArray(body)
    if (parsed === undefined) return refuse(response, technical.invalidInput())
    // Counted as received, refused or not, so a test sees every bulk that was sent.
    state.receipts.bulk(parsed.length)
    const checked = checkItems(parsed, spec, state.config.largestBulk)
    if (checked.refusal) return refuse(response, checked.refusal)
    const admissions = checked.value.map((item) => admit(state, spec, item))
    const accepted = admissions.flatMap((admission) =>
      admission.status === 'ACCEPTED' ? [admission.payment.outcome] : [],
    )
    if (accepted.includes('106')) return refuse(response, technical.unknownError())
    const answer = admissions.map((admission) => itemAnswer(spec, admission))
    if (accepted.includes('107'))
      return state.timers.after(state.config.hangMs, () => sendJson(response, 200, answer))
    sendJson(response, 200, answer)
  }
}
