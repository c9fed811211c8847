import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../../app/context.ts'
import { receiveProviderNotification } from '../../app/notifications.ts'

/**
 * POST /providers/:name/notifications: an operator tells us a side's outcome. No API keys here:
 * the operator proves itself with its own signature, which covers the exact bytes received, so
 * the body is kept as text.
 */
export async function providerNotificationRoutes(app: FastifyInstance, context: AppContext): Promise<void> {
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) =>
    done(null, body),
  )

  // Operators' own format, described per adapter (docs/adding-an-operator.md), not in the merchant API document.
  // MTN MoMo calls back with PUT or POST; the others POST.
  app.route({
    method: ['POST', 'PUT'],
    url: '/providers/:name/notifications',
    schema: { hide: true },
    handler: async (request) => {
      const { name } = request.params as { name: string }
      const rawBody = typeof request.body === 'string' ? request.body : ''
      const query = new URLSearchParams(request.url.split('?')[1] ?? '')
      await receiveProviderNotification(context, name, { headers: request.headers, rawBody, query })
      // Anyone may call this URL: the answer says nothing of the operation it named.
      return { received: true }
    },
  })
}
