import { modes } from '../../domain/kinds.ts'
import type { Operation, Side } from '../../domain/operation.ts'
import { isFinal, type Status } from '../../domain/status.ts'
import type { AppContext } from '../context.ts'
import { type OperationView, operationView, resendFromDashboard } from '../dashboard/operation-view.ts'
import { checkSide } from '../lifecycle.ts'
import type { ConsoleActor } from './merchant-actions.ts'
import { recordPlatformChange } from './platform-audit.ts'

/** An operation as the console shows it: the dashboard's view of it, and whose it is. */
export interface ConsoleOperationView extends OperationView {
  merchantName: string
  /** Why there is no operator to ask about it now; undefined when support may ask again. */
  nothingToAsk: Exclude<RecheckOutcome, { asked: true }>['why'] | undefined
}

/** The operation that has this token, of any merchant and either mode. */
async function operationOfToken(context: AppContext, token: string): Promise<Operation | undefined> {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(token)) return undefined
  for (const mode of modes) {
    const found = await context.store.platformSearch.findByReference(mode, token, 20)
    const operation = found.find((each) => each.token === token)
    if (operation) return operation
  }
  return undefined
}

/** An operation's page in the console, read-only: undefined when no operation has this token. */
export async function consoleOperationView(
  context: AppContext,
  token: string,
): Promise<ConsoleOperationView | undefined> {
  const operation = await operationOfToken(context, token)
  if (!operation) return undefined
  const [view, merchantName] = await Promise.all([
    operationView(context, operation.merchantId, operation.mode, token),
    context.store.merchants.nameOf(operation.merchantId),
  ])
  return (
    view && {
      ...view,
      merchantName: merchantName ?? operation.merchantId,
      nothingToAsk: nothingToAsk(operation),
    }
  )
}

/**
 * Support sends one of the operation's callbacks again (the API's redeliver): in the merchant's
 * audit as the dashboard's resend is, and in the platform audit log. False for an unknown token.
 */
export async function resendFromConsole(
  context: AppContext,
  actor: ConsoleActor,
  token: string,
  eventId: string,
): Promise<boolean> {
  const operation = await operationOfToken(context, token)
  if (!operation) return false
  const { merchantId, mode } = operation
  await resendFromDashboard(
    context,
    { memberId: actor.memberId, email: actor.email, address: actor.address },
    { merchantId, mode, token, eventId },
  )
  await recordPlatformChange(context, actor, {
    action: 'callback.resent',
    target: token,
    after: { merchantId, eventId },
  })
  return true
}

/**
 * What asking an operator again came to: the operation's status before and after the answer was
 * written, or why no operator was asked (a final operation has nothing to ask; a sandbox one has no
 * operator; a live one whose sides are not with their operator yet, e.g. waiting for the customer
 * on a hosted page or still being submitted, has nothing to ask them either).
 */
export type RecheckOutcome =
  | { asked: true; before: Status; after: Status }
  | { asked: false; why: 'unknown' | 'final' | 'sandbox' | 'not_with_operator' }

/** The sides an operator can be asked about: handed to it, still pending, not waiting for a customer. */
export function sidesWithOperator(operation: Operation): Side[] {
  return operation.sides.filter(
    (side) => side.status === 'pending' && side.submittedAtUs !== undefined && !side.awaitingCustomer,
  )
}

/** Why the console offers no "ask again" for the operation, or undefined when it does. */
export function nothingToAsk(
  operation: Operation,
): Exclude<RecheckOutcome, { asked: true }>['why'] | undefined {
  if (operation.mode === 'sandbox') return 'sandbox'
  if (isFinal(operation.status)) return 'final'
  return sidesWithOperator(operation).length === 0 ? 'not_with_operator' : undefined
}

/**
 * Support asks the operator for a pending operation's status again, as an operator's notification
 * makes Sika ask (lifecycle.ts checkSide): each side's turn is taken, at most one check per side
 * per second across the deployment, and the answer is written through the write pipeline, as a
 * poll's is. In the platform audit log with the status before and after.
 */
export async function recheckFromConsole(
  context: AppContext,
  actor: ConsoleActor,
  token: string,
): Promise<RecheckOutcome> {
  const operation = await operationOfToken(context, token)
  if (!operation) return { asked: false, why: 'unknown' }
  const why = nothingToAsk(operation)
  if (why) return { asked: false, why }
  for (const side of sidesWithOperator(operation)) await checkSide(context, operation.id, side.role)
  const now = (await context.store.operations.findById(operation.id)) ?? operation
  await recordPlatformChange(context, actor, {
    action: 'operation.status_asked',
    target: token,
    before: { merchantId: operation.merchantId, status: operation.status },
    after: { merchantId: operation.merchantId, status: now.status },
  })
  return { asked: true, before: operation.status, after: now.status }
}
