import assert from 'node:assert/strict'
import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { testSecretsKey } from './support/app.ts'
import {
  demoCredentials,
  freePort,
  type ServiceProcess,
  signalGroup,
  spawnSika,
  startService,
} from './support/process.ts'
import { describeEachStore } from './support/stores.ts'

/**
 * `sika serve` on a port another program holds says so in one line naming the address and PORT,
 * and exits 1: no stack trace. The failed start does not spend the demo merchant, whose secrets
 * only the first successful start prints; that start listens on 127.0.0.1 when HOST is unset.
 */

async function serveOnce(environment: Record<string, string>) {
  const child = spawnSika(['serve'], {
    env: { PATH: process.env.PATH, SECRETS_KEY: testSecretsKey, LOG_LEVEL: 'info', ...environment },
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk) => {
    stdout += chunk
  })
  child.stderr.on('data', (chunk) => {
    stderr += chunk
  })
  const timer = setTimeout(() => signalGroup(child, 'SIGKILL'), 30_000)
  const [code] = await once(child, 'exit')
  clearTimeout(timer)
  signalGroup(child, 'SIGKILL')
  return { code: code as number | null, stdout, stderr }
}

describeEachStore('sika serve on a busy port', (store) => {
  let port: number
  let blocker: Server
  let service: ServiceProcess | undefined
  before(async () => {
    port = await freePort()
    blocker = createServer().listen(port, '127.0.0.1')
    await once(blocker, 'listening')
  })
  after(async () => {
    await service?.kill('SIGTERM')
    blocker.close()
  })

  test('prints one line naming the address and PORT, and exits 1 without a stack trace', async () => {
    const result = await serveOnce({ PORT: String(port), DATABASE_URL: store().databaseUrl })
    assert.equal(result.code, 1, `${result.stdout}\n${result.stderr}`)
    const lines = result.stderr.trimEnd().split('\n')
    assert.equal(lines.length, 1, `one line on stderr:\n${result.stderr}`)
    assert.match(
      lines[0]!,
      new RegExp(`^sika: cannot listen on 127\\.0\\.0\\.1:${port}: port ${port} is in use`),
    )
    assert.match(lines[0]!, /PORT/)
    assert.doesNotMatch(`${result.stdout}${result.stderr}`, /EADDRINUSE|\n\s+at /)
    assert.doesNotMatch(result.stdout, /api-key/, 'no demo keys were printed')
  })

  test('the next start, on a free port, is the first start: it prints the demo keys and listens on 127.0.0.1', async () => {
    blocker.close()
    await once(blocker, 'close')
    // HOST blank is HOST unset: the default applies.
    service = await startService({ DATABASE_URL: store().databaseUrl, HOST: '' }, port)
    const demo = demoCredentials(service.output())
    assert.match(demo.apiKey, /^pk_test_/)
    assert.match(service.output(), new RegExp(`Server listening at http://127\\.0\\.0\\.1:${port}`))
    assert.doesNotMatch(service.output(), /listening at http:\/\/(?!127\.0\.0\.1)/, 'no other interface')
    const health = await fetch(`http://127.0.0.1:${port}/health`)
    assert.equal(health.status, 200)
  })
})

/**
 * /metrics listens apart, on 127.0.0.1:9464 by default. A second Sika on this machine that changes
 * only PORT still starts: the default port taken, /metrics listens on a free one and the log says
 * so, naming METRICS_PORT. A METRICS_PORT given and taken stops the start, naming it.
 */
describe('the /metrics port of a second Sika on this machine', () => {
  const folder = mkdtempSync(join(tmpdir(), 'sika-metrics-port-'))
  const databaseUrl = join(folder, 'sika.db')
  const services: ServiceProcess[] = []
  after(async () => {
    for (const service of services) await service.kill('SIGTERM')
    rmSync(folder, { recursive: true, force: true })
  })

  test('the default port taken, a second Sika that changes only PORT starts and warns, naming METRICS_PORT', async () => {
    // METRICS_PORT blank is METRICS_PORT unset: both take the default, as `npm start` does.
    const first = await startService({ DATABASE_URL: databaseUrl, METRICS_PORT: '' })
    services.push(first)
    const second = await startService({ DATABASE_URL: databaseUrl, METRICS_PORT: '' })
    services.push(second)
    assert.match(
      second.output(),
      /the default port 9464 is in use \(another Sika on this machine\?\), so \/metrics listens on http:\/\/127\.0\.0\.1:\d+\/metrics; set METRICS_PORT to choose its port/,
    )
    assert.notEqual(second.metricsUrl, first.metricsUrl)
    for (const service of [first, second]) {
      const scrape = await fetch(service.metricsUrl)
      assert.equal(scrape.status, 200, service.metricsUrl)
      assert.match(await scrape.text(), /^sika_/m)
      assert.equal((await fetch(`${service.url}/health`)).status, 200)
    }
    console.log(`first /metrics ${first.metricsUrl}, second ${second.metricsUrl}`)
  })

  test('a METRICS_PORT that is given and taken stops the start in one line naming it', async () => {
    const port = await freePort()
    const blocker = createServer().listen(port, '127.0.0.1')
    await once(blocker, 'listening')
    try {
      const result = await serveOnce({
        DATABASE_URL: databaseUrl,
        PORT: String(await freePort()),
        METRICS_PORT: String(port),
      })
      assert.equal(result.code, 1, `${result.stdout}\n${result.stderr}`)
      assert.match(
        result.stderr,
        new RegExp(`/metrics cannot listen on 127\\.0\\.0\\.1:${port} \\(EADDRINUSE\\): set METRICS_PORT`),
      )
    } finally {
      blocker.close()
    }
  })
})
