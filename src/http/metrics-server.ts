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
 * The default port taken, it listens on a free one and warns; a METRICS_PORT given and taken stops
 * the start.
 */
export async function listenForMetrics(context: AppContext): Promise<MetricsListener> {
  const { metricsHost, metricsPort, metricsPortGiven } = context.config
  try {
    return await listenOn(context, metricsPort)
  } catch (error) {
    const { code } = error as NodeJS.ErrnoException
    if (code === 'EADDRINUSE' && !metricsPortGiven) {
      // The default port, taken: most likely by another Sika on this machine, started with another PORT.
      const listener = await listenOn(context, 0)
      context.logger.warn(
        { metrics: listener.url },
        `/metrics: the default port ${metricsPort} is in use (another Sika on this machine?), so /metrics listens on ${listener.url}; set METRICS_PORT to choose its port`,
      )
      return listener
    }
    throw new ConfigError([
      `/metrics cannot listen on ${metricsHost}:${metricsPort} (${code ?? (error as Error).message}): set METRICS_PORT to a free port (0: any) or METRICS_HOST to an address of this machine`,
    ])
  }
}

async function listenOn(context: AppContext, port: number): Promise<MetricsListener> {
  const { metricsHost } = context.config
  const app = buildMetricsServer(context)
  try {
    await app.listen({ host: metricsHost, port })
  } catch (error) {
    await app.close()
    throw error
  }
  const address = app.server.address()
  const listening = typeof address === 'object' && address ? address.port : port
  const host = metricsHost.includes(':') ? `[${metricsHost}]` : metricsHost
  return { url: `http://${host}:${listening}/metrics`, close: () => app.close() }
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
