import assert from 'node:assert/strict'
import type { ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { applySettingsFile, readSettingsFile, settingsOutsideTheFile } from '../src/settings-file.ts'
import { testSecretsKey } from './support/app.ts'
import { runSikaIn } from './support/cli.ts'
import { demoCredentials, freePort, spawnSika, stopGroup } from './support/process.ts'
import { createSqliteTarget, describeEachStore } from './support/stores.ts'

/**
 * Settings come from the environment and from .env in the working folder, the environment winning
 * (CONTRACT.md, Runtime and configuration). `sika serve` and every other `sika` command read the
 * same ones: with PORT, PUBLIC_BASE_URL and DATABASE_URL only in .env, the server serves on that
 * port, `sika member invite` prints a link on that base, and `sika merchant list` shows the
 * server's merchants.
 */

interface Served {
  readonly child: ChildProcess
  output(): string
  stop(): Promise<void>
}

/** `sika serve` run in `folder` with only PATH, HOME and `settings` in its environment, once ready. */
async function serveIn(folder: string, settings: Record<string, string> = {}): Promise<Served> {
  const child = spawnSika(['serve'], {
    cwd: folder,
    env: { PATH: process.env.PATH, HOME: folder, ...settings },
  })
  let output = ''
  child.stdout.on('data', (chunk) => {
    output += chunk
  })
  child.stderr.on('data', (chunk) => {
    output += chunk
  })
  const stop = () => stopGroup(child, 'SIGTERM')
  const deadline = Date.now() + 30_000
  while (!output.includes('Sika is ready')) {
    if (child.exitCode !== null) throw new Error(`sika serve exited with ${child.exitCode}:\n${output}`)
    if (Date.now() > deadline) {
      await stopGroup(child, 'SIGKILL')
      throw new Error(`sika serve did not become ready in 30 s:\n${output}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return { child, output: () => output, stop }
}

describeEachStore('settings in .env, read by sika serve and every sika command', (store) => {
  let folder: string
  let port: number
  let baseUrl: string
  let served: Served | undefined
  before(async () => {
    folder = mkdtempSync(join(tmpdir(), 'sika-settings-'))
    port = await freePort()
    // A base URL that is not http://localhost:$PORT, so that a link on the default would show.
    baseUrl = `http://127.0.0.1:${port}`
    writeFileSync(
      join(folder, '.env'),
      [
        '# Sika on a port of its own',
        `PORT=${port}`,
        `PUBLIC_BASE_URL=${baseUrl}`,
        `DATABASE_URL="${store().databaseUrl}"`,
        `SECRETS_KEY=${testSecretsKey}`,
        'METRICS_PORT=0',
        '',
      ].join('\n'),
    )
    served = await serveIn(folder)
  })
  after(async () => {
    await served?.stop()
    rmSync(folder, { recursive: true, force: true })
  })

  test('sika serve listens on the PORT of .env, and says that sika commands read the same settings', async () => {
    const health = await fetch(`${baseUrl}/health`)
    assert.equal(health.status, 200)
    const output = served!.output()
    assert.match(output, new RegExp(`"url":"${baseUrl}"`))
    assert.match(output, /Run sika commands from this folder: each reads its settings as this server did/)
    assert.doesNotMatch(output, /came from its environment only/, 'every shared setting is in .env')
  })

  test('sika merchant list, from the same folder, shows the server’s merchants', async () => {
    const { merchantId } = demoCredentials(served!.output())
    const listed = await runSikaIn(folder, ['merchant', 'list'])
    assert.equal(listed.code, 0, listed.stderr)
    assert.match(listed.stdout, new RegExp(`^${merchantId}\\s+active.*Demo merchant`, 'm'))
  })

  test('sika member invite prints its link on the PUBLIC_BASE_URL of .env; the environment wins over the file', async () => {
    const { merchantId } = demoCredentials(served!.output())
    const invited = await runSikaIn(folder, [
      'member',
      'invite',
      merchantId,
      '--email',
      'a@shop.example',
      '--role',
      'owner',
    ])
    assert.equal(invited.code, 0, invited.stderr)
    assert.match(invited.stdout.trim(), new RegExp(`^${baseUrl}/dashboard/`))
    const elsewhere = await runSikaIn(
      folder,
      ['member', 'invite', merchantId, '--email', 'b@shop.example', '--role', 'viewer'],
      { PUBLIC_BASE_URL: 'https://sika.shop.example' },
    )
    assert.equal(elsewhere.code, 0, elsewhere.stderr)
    assert.match(elsewhere.stdout.trim(), /^https:\/\/sika\.shop\.example\/dashboard\//)
  })

  test('from a folder without .env, a command opens its own ./data/sika.db, not the server’s database', async () => {
    const other = mkdtempSync(join(tmpdir(), 'sika-no-settings-'))
    try {
      const listed = await runSikaIn(other, ['merchant', 'list'])
      assert.equal(listed.code, 0, listed.stderr)
      assert.match(listed.stdout, /No merchants yet/)
    } finally {
      rmSync(other, { recursive: true, force: true })
    }
  })
})

describe('the first start’s banner names the settings a sika command in another terminal would miss', () => {
  let cleanup: () => Promise<void> = async () => {}
  let folder: string
  let served: Served | undefined
  before(() => {
    const target = createSqliteTarget()
    cleanup = target.cleanup
    folder = join(target.target.databaseUrl, '..', 'here')
    mkdirSync(folder)
    writeFileSync(join(folder, '.env'), `SECRETS_KEY=${testSecretsKey}\nMETRICS_PORT=0\nPORT=1\n`)
  })
  after(async () => {
    await served?.stop()
    await cleanup()
  })

  test('PORT and DATABASE_URL given on the command line alone are named, with the fix: put them in .env', async () => {
    const port = await freePort()
    served = await serveIn(folder, { PORT: String(port), DATABASE_URL: join(folder, 'sika.db') })
    assert.equal(
      (await fetch(`http://127.0.0.1:${port}/health`)).status,
      200,
      'the environment wins over .env',
    )
    assert.match(
      served.output().replace(/\s+/g, ' '),
      /This server's DATABASE_URL and PORT came from its environment only, which a command in another terminal lacks: put them in \.env here/,
    )
  })
})

test('.env is read as dotenv reads it, and only fills what the environment lacks', () => {
  const folder = mkdtempSync(join(tmpdir(), 'sika-dotenv-'))
  try {
    assert.deepEqual(readSettingsFile(folder), { path: undefined, values: {} }, 'no .env: nothing to add')
    writeFileSync(
      join(folder, '.env'),
      '# a comment\nPORT=41000\nexport LOG_LEVEL=warn\nPUBLIC_BASE_URL="http://sika.test:41000"\nEMPTY=\n',
    )
    const file = readSettingsFile(folder)
    assert.equal(file.path, join(folder, '.env'))
    assert.deepEqual(file.values, {
      PORT: '41000',
      LOG_LEVEL: 'warn',
      PUBLIC_BASE_URL: 'http://sika.test:41000',
      EMPTY: '',
    })
    const environment: NodeJS.ProcessEnv = { PORT: '3001', DATABASE_URL: 'postgres://127.0.0.1/sika' }
    assert.deepEqual(settingsOutsideTheFile(file, environment), ['DATABASE_URL', 'PORT'])
    applySettingsFile(file, environment)
    assert.deepEqual(environment, {
      PORT: '3001',
      DATABASE_URL: 'postgres://127.0.0.1/sika',
      LOG_LEVEL: 'warn',
      PUBLIC_BASE_URL: 'http://sika.test:41000',
      EMPTY: '',
    })
  } finally {
    rmSync(folder, { recursive: true, force: true })
  }
})
