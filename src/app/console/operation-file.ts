import { modes } from '../../domain/kinds.ts'
import type { Operation } from '../../domain/operation.ts'
import type { AppContext } from '../context.ts'
import { type OperationView, operationView, resendFromDashboard } from '../dashboard/operation-view.ts'
import type { ConsoleActor } from './merchant-actions.ts'
import { recordPlatformChange } from './platform-audit.ts'

/** An operation as the console shows it: the dashboard's view of it, and whose it is. */
export interface ConsoleOperationView extends OperationView {
  merchantName: string
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
  return view && { ...view, merchantName: merchantName ?? operation.merchantId }
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
