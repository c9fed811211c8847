import type { FastifyInstance } from 'fastify'
import { closeContext, createContext, ensureDemoMerchant } from '../app/bootstrap.ts'
import type { AppContext } from '../app/context.ts'
import { keySourceName } from '../app/credentials.ts'
import { deliveryThreadTurns } from '../app/delivery-thread.ts'
import type { IssuedMerchant } from '../app/merchants.ts'
import { storeName } from '../app/store-status.ts'
import { createWorkers } from '../app/workers.ts'
import type { Config } from '../config.ts'
import { systemClock } from '../domain/clock.ts'
import { listenForMetrics } from '../http/metrics-server.ts'
import { buildServer } from '../http/server.ts'
import { createLogger } from '../logger.ts'
import { CommandError } from './usage.ts'

/**
 * sika serve: migrate, create the demo merchant on first start, listen, and stop gracefully.
 * `settingsOutsideTheFile` names the settings a `sika` command in another terminal would not see
 * (settings-file.ts): the first start's banner says so, beside the command it suggests.
 */
export async function serve(
  config: Config,
  settingsOutsideTheFile: readonly string[] = [],
): Promise<FastifyInstance> {
  const logger = createLogger(config.logLevel)
  // Before the store opens: with callbacks in a thread of their own, the two take turns at SQLite's write lock.
  const turns = deliveryThreadTurns(config)
  const context = await createContext(config, logger, systemClock, { writerTurns: turns })
  const app = await buildServer(context)
  // /metrics first: a start that cannot listen there stops before the API takes any request.
  const metrics = await listenForMetrics(context).catch(async (error) => {
    await app.close()
    await closeContext(context)
    throw error
  })
  await listen(app, context, config).catch(async (error) => {
    await metrics.close()
    throw error
  })
  // Once listening: a start that fails must not create the demo merchant, whose secrets only it prints.
  const demo = await ensureDemoMerchant(context)
  // Scheduled work and callbacks resume from the database: whatever was due before a crash runs now.
  const workers = config.runWorkers
    ? createWorkers(context, { deliveryThread: config.deliveryThread ? { turns } : undefined })
    : undefined
  if (demo) process.stdout.write(demoBanner(demo, config.publicBaseUrl, settingsOutsideTheFile))
  logger.info(
    {
      store: storeName(context),
      url: config.publicBaseUrl,
      metrics: metrics.url,
      secretsKey: keySourceName(config.secretsKey),
    },
    'Sika is ready',
  )

  let stopping = false
  const stop = async (signal: string) => {
    if (stopping) return
    stopping = true
    logger.info({ signal }, 'stopping: no new connections, finishing requests in flight')
    try {
      await metrics.close()
      await app.close()
      await workers?.stop()
      await closeContext(context)
      process.exit(0)
    } catch (error) {
      logger.error({ err: error }, 'unclean stop')
      process.exit(1)
    }
  }
  process.once('SIGTERM', () => void stop('SIGTERM'))
  process.once('SIGINT', () => void stop('SIGINT'))
  return app
}

/** Listens, or stops with one line saying what is wrong with the address and which setting changes it. */
async function listen(app: FastifyInstance, context: AppContext, config: Config): Promise<void> {
  try {
    await app.listen({ port: config.port, host: config.host })
  } catch (error) {
    const problem = listenProblem((error as NodeJS.ErrnoException).code, config)
    if (!problem) throw error
    await app.close()
    await closeContext(context)
    throw new CommandError(problem)
  }
}

function listenProblem(code: string | undefined, { host, port }: Config): string | undefined {
  const address = `${host.includes(':') ? `[${host}]` : host}:${port}`
  switch (code) {
    case 'EADDRINUSE':
      return `cannot listen on ${address}: port ${port} is in use (another Sika, or another program). Stop it, or choose another port with PORT, e.g. PORT=${port === 65_535 ? 3001 : port + 1}.`
    case 'EACCES':
      return `cannot listen on ${address}: this user may not open port ${port}. Choose a port above 1023 with PORT.`
    case 'EADDRNOTAVAIL':
      return `cannot listen on ${address}: ${host} is not an address of this machine. Set HOST to one that is (127.0.0.1, or 0.0.0.0 for every interface).`
    default:
      return undefined
  }
}

function demoBanner(demo: IssuedMerchant, baseUrl: string, outsideTheFile: readonly string[]): string {
  return `
  Sika: first start, a demo sandbox merchant was created. Its secrets are shown only now.

    merchant id     ${demo.id}
    api-key         ${demo.sandbox.apiKey}
    secret-key      ${demo.sandbox.secretKey}
    webhook secret  ${demo.webhookSecret}

  Try it:

    curl -s ${baseUrl}/api/v1/channels -H 'api-key: ${demo.sandbox.apiKey}' -H 'secret-key: ${demo.sandbox.secretKey}'

  Your team's dashboard (${baseUrl}/dashboard): invite yourself, then open the link it prints:

    npx sika member invite ${demo.id} --email you@example.com --role owner

${sameSettings(outsideTheFile)}

`
}

/** Where a `sika` command finds this server's settings, and which of them it would miss. */
function sameSettings(outsideTheFile: readonly string[]): string {
  const lines = [
    'Run sika commands from this folder: each reads its settings as this server did, from the',
    'environment and from .env here.',
  ]
  if (outsideTheFile.length > 0) {
    const names = outsideTheFile.join(', ').replace(/, ([^,]+)$/, ' and $1')
    lines.push(
      `This server's ${names} came from its environment only, which a command in another`,
      'terminal lacks: put them in .env here, or a command opens another database or prints links',
      'on another address.',
    )
  }
  return lines.map((line) => `  ${line}`).join('\n')
}
