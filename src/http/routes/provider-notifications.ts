import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../../app/context.ts'
import { settleSide } from '../../app/lifecycle.ts'
import { toOperation } from '../../app/operation-rows.ts'
import { ApiError } from '../../errors.ts'

/**
 * POST /providers/:name/notifications: an operator tells us a side's outcome. The adapter
 * verifies and translates the raw body; the state machine decides, exactly as for a poll.
 * No API keys here: the operator proves itself with its own signature.
 */
export async function providerNotificationRoutes(app: FastifyInstance, context: AppContext): Promise<void> {
  // Signatures cover the exact bytes received, so the body is kept as text.
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) =>
    done(null, body),
  )

  // Operators' own format, described per adapter (docs/adding-an-operator.md), not in the merchant API document.
  app.post('/providers/:name/notifications', { schema: { hide: true } }, async (request) => {
    const { name } = request.params as { name: string }
    const adapter = context.providers.byName(name)
    if (!adapter) throw new ApiError('not_found', `No provider is called ${name}.`)
    const rawBody = typeof request.body === 'string' ? request.body : ''
    const notification = await adapter.parseNotification({ headers: request.headers, rawBody })
    if (!notification)
      throw new ApiError('invalid_credentials', 'The notification is not authentic or not understood.')
    const row = await context.store.db
      .selectFrom('operations')
      .selectAll()
      .where('token', '=', notification.token)
      .executeTakeFirst()
    const operation = row && toOperation(row)
    const side = operation?.sides.find((candidate) => candidate.role === notification.role)
    // The notification must come from the adapter that moves this side's money, about the
    // request that adapter was given: a sandbox signature never settles a live operation.
    if (
      !operation ||
      !side ||
      context.providers.adapterFor(operation.mode, side.channel).name !== adapter.name ||
      (side.providerReference !== undefined &&
        notification.outcome.providerReference !== undefined &&
        side.providerReference !== notification.outcome.providerReference)
    ) {
      throw new ApiError('not_found', `No ${name} operation side matches this notification.`)
    }
    const settled = await settleSide(
      context,
      operation.id,
      notification.role,
      notification.outcome,
      'provider',
    )
    return { received: true, token: settled.token, status: settled.status }
  })
}
