import { randomUUID } from 'node:crypto'
import { createServer, type Server, type ServerOptions } from 'node:http'
import Fastify, {
  type FastifyBaseLogger,
  type FastifyHttpOptions,
  type FastifyInstance,
  type FastifyServerFactory,
  LogController,
} from 'fastify'
import type { AppContext } from '../app/context.ts'
import { ApiError } from '../errors.ts'
import { atCapacity, createRequestAdmission, type RequestAdmission } from './admission.ts'
import { requireCredentials } from './authentication.ts'
import { consoleRoutes } from './console/console-routes.tsx'
import { dashboardRoutes } from './dashboard/dashboard-routes.tsx'
import { acceptedRequestId } from './edge-answer.ts'
import { answerClientError, installErrorHandling, sendError } from './error-handler.ts'
import { createFrontDoor, type FrontDoor } from './front-door.ts'
import { refuseHostileInput } from './hostile-input.ts'
import { documentApiRoutes, registerOpenApi } from './openapi.ts'
import { payRoutes } from './pay/pay-routes.tsx'
import { type RateLimits, rateLimitsOf, registerRateLimits } from './rate-limit.ts'
import { lazyRequestLogger } from './request-logger.ts'
import { channelRoutes } from './routes/channels.ts'
import { checkoutRoutes } from './routes/checkout.ts'
import { eventRoutes } from './routes/events.ts'
import { healthRoutes } from './routes/health.ts'
import { homeRoutes } from './routes/home.ts'
import { timeAnswers } from './routes/metrics.ts'
import { operationRoutes } from './routes/operations.ts'
import { paymentLinkRoutes } from './routes/payment-links.ts'
import { payoutBatchRoutes } from './routes/payout-batches.ts'
import { providerNotificationRoutes } from './routes/provider-notifications.ts'
import { transactionRoutes } from './routes/transactions.ts'
import { validatorCompiler } from './validation.ts'

export const bodyLimitBytes = 64 * 1024
export const requestTimeoutMs = 10_000

/** Builds the whole HTTP surface without listening, so tests can inject() or listen as they need. */
export async function buildServer(context: AppContext): Promise<FastifyInstance> {
  const admission = admissionOf(context)
  // Set once they are registered, before the server listens: the front door counts with them.
  let limits: RateLimits | undefined
  const frontDoor = frontDoorOf(context, admission, () => limits!)
  const app = Fastify(serverOptions(context, frontDoor))
  app.setValidatorCompiler(validatorCompiler)
  // Request bodies are JSON or nothing: text/plain would otherwise arrive as a string.
  app.removeContentTypeParser('text/plain')
  refuseHostileInput(app, bodyLimitBytes)
  // A request with a body takes its admission turn here, once the body has arrived and been parsed.
  app.addHook('preValidation', (request, reply, done) => {
    admission.admitArrived(request.raw, reply.raw, done, () => sendError(reply, request, atCapacity))
  })
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id)
    done()
  })
  installErrorHandling(app, context)
  // Before any route it covers is declared (/docs, /openapi.json, the checkout pages, /api/v1).
  await registerRateLimits(app, context)
  limits = rateLimitsOf(app)

  await registerOpenApi(app)
  homeRoutes(app)
  healthRoutes(app, context)
  // /metrics itself listens apart (metrics-server.ts); every answer here is timed for it.
  timeAnswers(app, context)
  app.addHook('onClose', async () => context.metrics.close())
  await app.register(
    async (api) => {
      documentApiRoutes(api)
      requireCredentials(api, context)
      channelRoutes(api, context)
      operationRoutes(api, context)
      payoutBatchRoutes(api, context)
      transactionRoutes(api, context)
      eventRoutes(api, context)
      paymentLinkRoutes(api, context)
    },
    { prefix: '/api/v1' },
  )
  // Each in its own scope: their body parsers (form posts, raw text) must not reach the API.
  await app.register(async (scope) => checkoutRoutes(scope, context))
  await app.register(async (scope) => dashboardRoutes(scope, context))
  await app.register(async (scope) => consoleRoutes(scope, context))
  await app.register(async (scope) => payRoutes(scope, context))
  await app.register(async (scope) => providerNotificationRoutes(scope, context))
  return app
}

/** Fastify's options: its server behind the front door, and what every request is given and allowed. */
function serverOptions(context: AppContext, frontDoor: FrontDoor): FastifyHttpOptions<Server> {
  return {
    serverFactory: admittingServer(frontDoor),
    loggerInstance: context.logger as FastifyBaseLogger,
    childLoggerFactory: lazyRequestLogger,
    bodyLimit: bodyLimitBytes,
    genReqId: (request) => acceptedRequestId(request.headers['x-request-id']) ?? randomUUID(),
    // The proxies whose X-Forwarded-For is believed: request.ip is then the client, for every per-address limit.
    trustProxy: context.config.trustProxy.length > 0 ? [...context.config.trustProxy] : false,
    // Probes come every few seconds; logging each would drown the real traffic.
    logController: new LogController({
      requestIdLogLabel: 'requestId',
      disableRequestLogging: (request) => ['/health', '/ready'].includes(request.url),
    }),
    return503OnClosing: true,
    // A request must arrive whole within 10 s: a body trickled a byte at a time is answered 408
    // instead of holding a connection for minutes. Node checks every second.
    requestTimeout: requestTimeoutMs,
    http: { connectionsCheckingInterval: 1_000, headersTimeout: requestTimeoutMs },
    clientErrorHandler: answerClientError(context.logger),
    // The router's own refusals (a malformed percent-encoding, an overlong token) are unknown routes.
    frameworkErrors: (_error, request, reply) => {
      reply.header('x-request-id', request.id)
      return sendError(reply, request, new ApiError('not_found'))
    },
    routerOptions: { ignoreTrailingSlash: true },
  }
}

/** Admission control (admission.ts), its waits and refusals counted in the metrics. */
function admissionOf(context: AppContext): RequestAdmission {
  return createRequestAdmission(context.config, {
    waited: () => context.metrics.countAdmissionWait(),
    refused: (request, durationMs) =>
      context.metrics.observeRequest({
        method: request.method ?? 'GET',
        route: atCapacityRoute,
        statusCode: 503,
        durationMs,
      }),
  })
}

/** The front door (front-door.ts), its 429s counted in the metrics as admission's 503s are. */
function frontDoorOf(context: AppContext, admission: RequestAdmission, limits: () => RateLimits): FrontDoor {
  return createFrontDoor(context, admission, limits, {
    overLimit: (request, durationMs) =>
      context.metrics.observeRequest({
        method: request.method ?? 'GET',
        route: overKeyLimitRoute,
        statusCode: 429,
        durationMs,
      }),
  })
}

/** Fastify's own HTTP/1 server, with the front door and admission control in front of its handler. */
function admittingServer(frontDoor: FrontDoor): FastifyServerFactory {
  return (handler, options) => {
    // What Fastify would have set on the server it creates (its options, defaults filled in).
    const { http, keepAliveTimeout, requestTimeout, connectionTimeout } = options as ServerSettings
    const server = createServer(http ?? {}, (request, response) =>
      frontDoor.handle(request, response, () => handler(request, response)),
    )
    if (keepAliveTimeout !== undefined) server.keepAliveTimeout = keepAliveTimeout
    if (requestTimeout !== undefined) server.requestTimeout = requestTimeout
    server.setTimeout(connectionTimeout ?? 0)
    return server
  }
}

interface ServerSettings {
  http?: ServerOptions
  keepAliveTimeout?: number
  requestTimeout?: number
  connectionTimeout?: number
}

/** The route labels of the requests refused in front of Fastify, before any route was matched. */
const atCapacityRoute = 'at-capacity'
const overKeyLimitRoute = 'over-key-limit'
