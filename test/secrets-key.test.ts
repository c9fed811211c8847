import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { startService } from './support/process.ts'
import { describeEachStore } from './support/stores.ts'

/**
 * The key that seals webhook secrets (SECRETS_KEY, or SECRETS_KEY_FILE, by default beside the
 * SQLite database or ./data/secrets.key from the working folder): a command or a start given a key
 * that does not open the secrets already stored refuses to run and names the key it was given, so
 * a CLI run from another folder cannot seal secrets the service cannot open (every callback of
 * that merchant then failed, "unable to authenticate data").
 */

const run = promisify(execFile)
const sikaBin = fileURLToPath(new URL('../bin/sika.mjs', import.meta.url))

interface Ran {
  code: number
  stdout: string
  stderr: string
}

/** `sika ARGS` with only the settings given: no SECRETS_KEY unless the test passes one. */
async function sika(databaseUrl: string, keyFile: string, args: string[], cwd: string): Promise<Ran> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    DATABASE_URL: databaseUrl,
    SECRETS_KEY_FILE: keyFile,
  }
  try {
    const { stdout, stderr } = await run(process.execPath, [sikaBin, ...args], { env, cwd, timeout: 30_000 })
    return { code: 0, stdout, stderr }
  } catch (error) {
    const failed = error as { code?: unknown; stdout?: string; stderr?: string; killed?: boolean }
    if (typeof failed.code === 'number' && !failed.killed)
      return { code: failed.code, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' }
    throw error
  }
}

describeEachStore('the secrets key must open the secrets already stored', (store) => {
  let folder: string
  let serviceKey: string
  before(async () => {
    folder = mkdtempSync(join(tmpdir(), 'sika-secrets-key-'))
    serviceKey = join(folder, 'service', 'secrets.key')
    // The first command makes the key (and seals the merchant's webhook secrets with it).
    const created = await sika(
      store().databaseUrl,
      serviceKey,
      ['merchant', 'create', '--name', 'Shop', '--json'],
      folder,
    )
    assert.equal(created.code, 0, created.stderr)
    assert.ok(existsSync(serviceKey), 'the first run made its key')
  })
  after(() => rmSync(folder, { recursive: true, force: true }))

  test('a command given a key file that does not exist refuses, names it, and makes no key', async (t) => {
    const elsewhere = join(folder, 'elsewhere', 'data', 'secrets.key')
    const ran = await sika(store().databaseUrl, elsewhere, ['merchant', 'create', '--name', 'Other'], folder)
    t.diagnostic(`missing key file: exit ${ran.code}, ${ran.stderr.trim().split('\n').at(-1)}`)
    assert.equal(ran.code, 1, ran.stdout)
    assert.ok(ran.stderr.includes(elsewhere), ran.stderr)
    assert.match(ran.stderr, /does not exist.*holds webhook secrets/)
    assert.match(ran.stderr, /SECRETS_KEY_FILE/)
    assert.equal(existsSync(elsewhere), false, 'no new key was made')
  })

  test('a command given another key refuses, names the file, and writes nothing', async (t) => {
    const other = join(folder, 'other.key')
    writeFileSync(other, randomBytes(32).toString('hex'), { mode: 0o600 })
    const before = await sika(store().databaseUrl, serviceKey, ['merchant', 'list', '--json'], folder)
    assert.equal(before.code, 0, before.stderr)
    const ran = await sika(store().databaseUrl, other, ['merchant', 'create', '--name', 'Other'], folder)
    t.diagnostic(`another key: exit ${ran.code}, ${ran.stderr.trim().split('\n').at(-1)}`)
    assert.equal(ran.code, 1, ran.stdout)
    assert.ok(ran.stderr.includes(other), ran.stderr)
    assert.match(ran.stderr, /does not open the webhook secrets/)
    const after = await sika(store().databaseUrl, serviceKey, ['merchant', 'list', '--json'], folder)
    assert.equal(after.code, 0, after.stderr)
    assert.equal(JSON.parse(after.stdout).length, JSON.parse(before.stdout).length, 'no merchant was created')
  })

  test('sika serve refuses to start with another key, naming it; starts with its own', async () => {
    const other = join(folder, 'serve-other.key')
    writeFileSync(other, randomBytes(32).toString('hex'), { mode: 0o600 })
    const environment = { DATABASE_URL: store().databaseUrl, SECRETS_KEY: '', WORKERS: 'off' }
    await assert.rejects(
      startService({ ...environment, SECRETS_KEY_FILE: other }),
      (error: Error) =>
        error.message.includes(other) && /does not open the webhook secrets/.test(error.message),
    )
    const service = await startService({ ...environment, SECRETS_KEY_FILE: serviceKey })
    try {
      assert.ok(service.output().includes(serviceKey), 'the ready line names the key file it uses')
    } finally {
      await service.kill('SIGTERM')
    }
  })
})
