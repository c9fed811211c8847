import { createHash, timingSafeEqual } from 'node:crypto'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { AppContext } from '../../app/context.ts'
import { ApiError } from '../../errors.ts'

/**
 * Times every answer of every route of the server it is registered on (its root instance), for
 * sika_http_request_duration_seconds and sika_http_requests_total.
 */
export function timeAnswers(app: FastifyInstance, context: AppContext): void {
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
}

/**
 * GET /metrics: this instance's Prometheus metrics (CONTRACT.md, Operations surface), on the
 * metrics listener only (metrics-server.ts), never on the API's port. No merchant key and no rate
 * limit; with METRICS_TOKEN set, only a request carrying `Authorization: Bearer <METRICS_TOKEN>` is
 * answered. A scrape costs no database query of its own: the store's gauges are at most 5 s old.
 */
export function metricsRoute(app: FastifyInstance, context: AppContext): void {
  const { metrics } = context
  const token = context.config.metricsToken
  app.get('/metrics', async (request, reply) => {
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
