import type { ServerResponse } from 'node:http'
import type { SimulatorOutcome } from '../test-numbers.ts'
import { type Refusal, refusals } from './errors.ts'
import { sendJson } from './http-io.ts'
import type { SimulatorState } from './state.ts'

export function refuse(response: ServerResponse, refusal: Refusal) {
  sendJson(response, refusal.status, refusal.body)
}

/**
 * Answers a create call whose object is already stored, as its test number says: 106 with a 500
 * (the docs warn a 5xx may hide a created object), 107 only after hangMs, any other at once. The
 * body is the object as it was when the request was processed.
 */
export function acknowledge(
  state: SimulatorState,
  response: ServerResponse,
  outcome: SimulatorOutcome | undefined,
  body: Record<string, unknown>,
) {
  if (outcome === '106') return refuse(response, refusals.internalServerError())
  if (outcome === '107') return state.timers.after(state.config.hangMs, () => sendJson(response, 200, body))
  sendJson(response, 200, body)
}
