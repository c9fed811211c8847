import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { after, before, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { demoCredentials, type ServiceProcess, startService } from '../support/process.ts'
import { describeEachStore } from '../support/stores.ts'

// The definition of done: examples/walkthrough.ts, the README's merchant walk-through
// through the typed client, runs green against a freshly started server.
const run = promisify(execFile)
const repositoryRoot = fileURLToPath(new URL('../..', import.meta.url))

async function runWalkthrough(environment: Record<string, string>) {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'examples/walkthrough.ts'], {
      cwd: repositoryRoot,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...environment },
      timeout: 60_000,
    })
    return { code: 0, stdout, stderr }
  } catch (error) {
    const failed = error as { code?: unknown; stdout?: string; stderr?: string; killed?: boolean }
    if (typeof failed.code !== 'number' || failed.killed) throw error
    return { code: failed.code, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' }
  }
}

describeEachStore('examples/walkthrough.ts against a fresh `sika serve`', (store) => {
  let service: ServiceProcess
  let environment: Record<string, string>
  before(async () => {
    service = await startService({ DATABASE_URL: store().databaseUrl })
    const demo = demoCredentials(service.output())
    environment = { SIKA_URL: service.url, SIKA_API_KEY: demo.apiKey, SIKA_SECRET_KEY: demo.secretKey }
  })
  after(() => service?.kill('SIGTERM'))

  test('runs green with the demo merchant the first start printed', async () => {
    const result = await runWalkthrough(environment)
    assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`)
    assert.match(result.stdout, /Walk-through complete/)
    assert.match(
      result.stdout,
      /409 duplicate_merchant_reference/,
      'the deliberate error is shown with its code',
    )
  })

  test('runs green again against the same server: its references are new on each run', async () => {
    const result = await runWalkthrough(environment)
    assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`)
    assert.match(result.stdout, /Walk-through complete/)
  })

  test('exits non-zero, naming the typed failure, when the keys are wrong', async () => {
    const result = await runWalkthrough({ ...environment, SIKA_SECRET_KEY: 'sk_test_wrong' })
    assert.equal(result.code, 1, result.stdout)
    assert.match(result.stderr, /FAILED: list channels: 401 invalid_credentials/)
  })
})
