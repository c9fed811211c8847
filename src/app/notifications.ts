import type { SideRole } from '../domain/kinds.ts'
import type { Operation } from '../domain/operation.ts'
import { ApiError } from '../errors.ts'
import type { NotificationInput, ProviderAdapter, ProviderNotification } from '../providers/provider.ts'
import type { AppContext } from './context.ts'
import { checkSide, settleSide } from './lifecycle.ts'

/**
 * An operator tells us a side's outcome. The adapter verifies and translates the raw body; the
 * state machine decides, exactly as for a poll. The notification must come from the adapter
 * that moves this side's money, about the request that adapter was given: a sandbox signature
 * never settles a live operation.
 */
export async function receiveProviderNotification(
  context: AppContext,
  adapterName: string,
  input: NotificationInput,
): Promise<void> {
  const adapters = context.providers.byName(adapterName)
  if (adapters.length === 0) throw new ApiError('not_found', `No provider is called ${adapterName}.`)
  const notification = await firstUnderstood(adapters, input)
  if (!notification)
    throw new ApiError('invalid_credentials', 'The notification is not authentic or not understood.')
  const { operation, role } = await notifiedSide(context, notification)
  const side = operation?.sides.find((candidate) => candidate.role === role)
  if (
    !operation ||
    !side ||
    context.providers.adapterFor(operation.mode, side.channel, side.country).name !== adapterName ||
    (side.providerReference !== undefined &&
      notification.outcome.providerReference !== undefined &&
      side.providerReference !== notification.outcome.providerReference)
  ) {
    throw new ApiError('not_found', `No ${adapterName} operation side matches this notification.`)
  }
  // An unsigned notification proves nothing: the operator's status endpoint is asked instead.
  if (notification.confirm) {
    if (side.status === 'pending') await checkSide(context, operation.id, side.role)
    return
  }
  await settleSide(context, operation.id, side.role, notification.outcome, 'provider')
}

/** The side a notification names: by our token and role, or by the reference its operator knows it by. */
async function notifiedSide(
  context: AppContext,
  { side }: ProviderNotification,
): Promise<{ operation?: Operation; role?: SideRole }> {
  if ('operatorReference' in side)
    return (await context.store.operations.findByOperatorReference(side.operatorReference)) ?? {}
  return {
    operation: (await context.store.operations.findAnyByToken(side.token))?.operation,
    role: side.role,
  }
}

/** The first connection of the adapter that verifies and understands it (each signs with its own secret). */
async function firstUnderstood(
  adapters: readonly ProviderAdapter[],
  input: NotificationInput,
): Promise<ProviderNotification | undefined> {
  for (const adapter of adapters) {
    const notification = await adapter.parseNotification(input)
    if (notification) return notification
  }
  return undefined
}
