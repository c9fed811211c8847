import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import type { AppContext } from '../../app/context.ts'
import { checkStoreAnswers, storeName } from '../../app/store-status.ts'
import { ApiError } from '../../errors.ts'
import { errorResponse } from '../openapi.ts'
import { rateLimitsOf } from '../rate-limit.ts'

/** A load balancer's probe must hear "not ready" quickly, even from a database that does not answer at all. */
const readinessBoundMs = 900

export function healthRoutes(app: FastifyInstance, context: AppContext): void {
  const Probe = Type.Object({
    status: Type.String({ description: 'ok (/health) or ready (/ready)' }),
    store: Type.Optional(Type.String({ description: 'The database: sqlite or postgres' })),
    rateLimit: Type.Optional(
      Type.String({
        description: 'Where rate limits are counted: redis (shared), memory (this instance) or off.',
      }),
    ),
    detail: Type.Optional(Type.String({ description: 'What is degraded but does not stop the service.' })),
  })
  app.get(
    '/health',
    {
      schema: {
        tags: ['health'],
        operationId: 'health',
        summary: 'Liveness: the process answers',
        description: 'Answers 200 while the process runs, whatever the database does.',
        response: { 200: Probe },
      },
    },
    async () => ({ status: 'ok' }),
  )
  const readiness = {
    tags: ['health'],
    operationId: 'ready',
    summary: 'Readiness: the database answers',
    description:
      'Answers 200 only while the database answers a query, and 503 `unavailable` otherwise. A Redis that does not answer leaves it ready: rate limits are then counted per instance, and `detail` says so.',
    response: { 200: Probe, 503: errorResponse(['unavailable']) },
  }
  app.get('/ready', { schema: readiness }, async () => {
    try {
      await checkStoreAnswers(context, readinessBoundMs)
    } catch {
      throw new ApiError('unavailable', 'The database cannot be reached.')
    }
    return { status: 'ready', store: storeName(context), ...rateLimitsOf(app).state() }
  })
}
