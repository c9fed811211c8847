import { randomUUID } from 'node:crypto'
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify'
import type { AppContext } from '../app/context.ts'
import { ConfigError } from '../config.ts'
import { answerClientError, installErrorHandling } from './error-handler.ts'
import { metricsRoute, timeAnswers } from './routes/metrics.ts'

/**
 * The listener of /metrics, apart from the API's port, at METRICS_HOST:METRICS_PORT (127.0.0.1:9464
 * by default): who may scrape is decided by where it listens (and METRICS_TOKEN when set), never by
 * what a caller on the API's port claims to be. Anything but GET /metrics is a 404 in the envelope.
 */
export async function listenForMetrics(context: AppContext): Promise<MetricsListener> {
  const { metricsHost, metricsPort } = context.config
  const app = buildMetricsServer(context)
  try {
    await app.listen({ host: metricsHost, port: metricsPort })
  } catch (error) {
    await app.close()
    const { code } = error as NodeJS.ErrnoException
    throw new ConfigError([
      `/metrics cannot listen on ${metricsHost}:${metricsPort} (${code ?? (error as Error).message}): set METRICS_PORT to a free port (0: any) or METRICS_HOST to an address of this machine`,
    ])
  }
  const address = app.server.address()
  const port = typeof address === 'object' && address ? address.port : metricsPort
  const host = metricsHost.includes(':') ? `[${metricsHost}]` : metricsHost
  return { url: `http://${host}:${port}/metrics`, close: () => app.close() }
}

export interface MetricsListener {
  /** Where Prometheus scrapes this instance. */
  readonly url: string
  close(): Promise<void>
}

function buildMetricsServer(context: AppContext): FastifyInstance {
  const app = Fastify({
    loggerInstance: context.logger as FastifyBaseLogger,
    // Scrapes come every few seconds; logging each would drown the real traffic.
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: () => randomUUID(),
    return503OnClosing: true,
    requestTimeout: 10_000,
    clientErrorHandler: answerClientError(context.logger),
  })
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id)
    done()
  })
  installErrorHandling(app, context)
  timeAnswers(app, context)
  metricsRoute(app, context)
  return app
}
