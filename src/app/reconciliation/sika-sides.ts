import { sideKinds } from '../../domain/kinds.ts'
import type { Operation, Side } from '../../domain/operation.ts'
import type { OperatorLine, StatementWindow } from '../../domain/operator-lines.ts'
import type { SikaSide } from '../../domain/reconciliation.ts'
import type { LiveConnection } from '../../providers/registry.ts'
import type { AppContext } from '../context.ts'

/** Sika's sides for one run, and the operations they belong to (for repairs and the status checks). */
export interface SidesOfRun {
  sides: SikaSide[]
  operations: Map<number, Operation>
}

const within = (window: StatementWindow, atUs: number | null | undefined) =>
  atUs !== null && atUs !== undefined && atUs >= window.startAtUs && atUs < window.endAtUs

/** Whether a side goes through this connection: its channel, in one of its countries. */
const throughConnection = (connection: LiveConnection, side: Side) =>
  side.channel === connection.channel && connection.countries.includes(side.country)

/**
 * A side belongs to the day when it ended in the day's window (a side still pending: when its
 * operation began in it). A side of a transfer whose other side goes on has no end of its own:
 * the operation's last change stands for it.
 */
function ofTheDay(operation: Operation, side: Side, day: StatementWindow): boolean {
  if (side.status === 'pending') return within(day, operation.initiatedAtUs)
  return within(day, operation.completedAtUs ?? operation.updatedAtUs)
}

export function sikaSide(operation: Operation, side: Side, day: StatementWindow): SikaSide {
  return {
    operationId: operation.id,
    token: operation.token,
    role: side.role,
    ...(side.operatorReference ? { operatorReference: side.operatorReference } : {}),
    ...(side.providerReference ? { providerReference: side.providerReference } : {}),
    direction: sideKinds[side.kind].direction,
    amountMinor: side.transactionAmountMinor,
    currency: side.currency,
    status: side.status,
    ofTheDay: ofTheDay(operation, side, day),
  }
}

/**
 * The live sides of the connection that began near the day (an operation lives at most its TTL,
 * so one begun that long before the day may end in it), and every side a line names, whenever it
 * began. Only sides handed to the operator count: one never submitted moved nothing there.
 */
export async function sidesOfRun(
  context: AppContext,
  connection: LiveConnection,
  day: StatementWindow,
  lines: readonly OperatorLine[],
): Promise<SidesOfRun> {
  const fromUs = day.startAtUs - context.config.operationTtlMs * 1000 - 3_600_000_000
  const near = await context.store.reconciliation.liveOperationsOf(connection.channel, fromUs, day.endAtUs)
  // Only what the operations begun near the day do not already name is looked up.
  const knownReferences = new Set<string>()
  const knownTokens = new Set<string>()
  for (const operation of near) {
    knownTokens.add(operation.token)
    for (const side of operation.sides)
      if (side.operatorReference) knownReferences.add(side.operatorReference.toLowerCase())
  }
  const references = new Set<string>()
  const tokens = new Set<string>()
  for (const line of lines) {
    const { operatorReference, side } = line.references
    if (side && knownTokens.has(side.token)) continue
    if (operatorReference && !knownReferences.has(operatorReference.toLowerCase()))
      references.add(operatorReference)
    if (side) tokens.add(side.token)
  }
  const named = await context.store.reconciliation.operationsNamed([...references], [...tokens])
  const operations = new Map<number, Operation>()
  for (const operation of [...near, ...named])
    if (operation.mode === 'live') operations.set(operation.id, operation)
  const sides: SikaSide[] = []
  for (const operation of operations.values())
    for (const side of operation.sides)
      if (throughConnection(connection, side) && side.submittedAtUs !== undefined)
        sides.push(sikaSide(operation, side, day))
  return { sides, operations }
}
