import { createHash, timingSafeEqual } from 'node:crypto'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import type { AppContext } from '../../app/context.ts'
import { ApiError } from '../../errors.ts'
import { errorResponse } from '../openapi.ts'

/**
 * GET /metrics: this instance's Prometheus metrics (CONTRACT.md, Operations surface). Outside
 * /api/v1, so no merchant key and no rate limit; with METRICS_TOKEN set, only a request carrying
 * `Authorization: Bearer <METRICS_TOKEN>` is answered. Registered on the root instance, which also
 * times every answer of every route for sika_http_request_duration_seconds.
 */
export function metricsRoutes(app: FastifyInstance, context: AppContext): void {
  const { metrics } = context
  app.addHook('onResponse', (request, reply, done) => {
    metrics.observeRequest({
      method: request.method,
      route: request.is404 ? undefined : request.routeOptions.url,
      statusCode: reply.statusCode,
      durationMs: reply.elapsedTime,
    })
    done()
  })
  app.addHook('onClose', async () => metrics.close())
  const token = context.config.metricsToken
  const schema = {
    tags: ['health'],
    operationId: 'metrics',
    summary: 'Prometheus metrics of this instance',
    description:
      'The Prometheus text exposition format: HTTP requests by route and status with their latency, ' +
      'operations by kind, mode and status, the callback (outbox) and scheduled-work backlogs, operator ' +
      'calls by adapter, database connections, and process metrics (event-loop delay included). ' +
      'When the instance sets `METRICS_TOKEN`, send `Authorization: Bearer <METRICS_TOKEN>`; otherwise ' +
      'it answers 401 `missing_credentials` or `invalid_credentials`.',
    response: {
      200: {
        description: 'The metrics, in the Prometheus text format 0.0.4',
        content: { 'text/plain': { schema: Type.String() } },
      },
      401: {
        ...errorResponse(['missing_credentials', 'invalid_credentials']),
        description:
          'Only when METRICS_TOKEN is set. `missing_credentials`: no `Authorization: Bearer` token was sent. ' +
          '`invalid_credentials`: the token is not METRICS_TOKEN.',
      },
    },
  }
  app.get('/metrics', { schema }, async (request, reply) => {
    if (token !== undefined) requireBearer(request, token)
    const text = await metrics.render()
    return reply.type(metrics.contentType).send(text)
  })
}

const bearerChallenge = { 'www-authenticate': 'Bearer realm="metrics"' }

/** The token is compared in constant time (as digests, so its length is not told either). */
function requireBearer(request: FastifyRequest, token: string): void {
  const header = request.headers.authorization
  const sent = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] : undefined
  if (sent === undefined) {
    throw new ApiError(
      'missing_credentials',
      'This instance requires a bearer token for /metrics: Authorization: Bearer <METRICS_TOKEN>.',
      undefined,
      bearerChallenge,
    )
  }
  const digest = (value: string) => createHash('sha256').update(value).digest()
  if (!timingSafeEqual(digest(sent), digest(token))) {
    throw new ApiError(
      'invalid_credentials',
      'The bearer token does not match METRICS_TOKEN.',
      undefined,
      bearerChallenge,
    )
  }
}
