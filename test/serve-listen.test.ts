import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { createServer, type Server } from 'node:net'
import { after, before, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { testSecretsKey } from './support/app.ts'
import { demoCredentials, freePort, type ServiceProcess, startService } from './support/process.ts'
import { describeEachStore } from './support/stores.ts'

/**
 * `sika serve` on a port another program holds says so in one line naming the address and PORT,
 * and exits 1: no stack trace. The failed start does not spend the demo merchant, whose secrets
 * only the first successful start prints; that start listens on 127.0.0.1 when HOST is unset.
 */

const sikaBin = fileURLToPath(new URL('../bin/sika.mjs', import.meta.url))

async function serveOnce(environment: Record<string, string>) {
  const child = spawn(process.execPath, [sikaBin, 'serve'], {
    env: { PATH: process.env.PATH, SECRETS_KEY: testSecretsKey, LOG_LEVEL: 'info', ...environment },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk) => {
    stdout += chunk
  })
  child.stderr.on('data', (chunk) => {
    stderr += chunk
  })
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000)
  const [code] = await once(child, 'exit')
  clearTimeout(timer)
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
