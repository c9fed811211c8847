import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { readFileSync, statSync, utimesSync } from 'node:fs'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

const run = promisify(execFile)
const root = fileURLToPath(new URL('..', import.meta.url))
const sikaBin = `${root}bin/sika.mjs`
const bundle = `${root}dist/sika.mjs`

test('`sika` runs a plain-JavaScript bundle of src/, rebuilt when a source is newer than it', async () => {
  await run(process.execPath, [sikaBin, 'help'], { cwd: root })
  const anHourAgo = Date.now() / 1000 - 3600
  utimesSync(bundle, anHourAgo, anHourAgo)

  const { stdout } = await run(process.execPath, [sikaBin, 'help'], { cwd: root })

  assert.match(stdout, /Usage: sika <command>/)
  assert.ok(statSync(bundle).mtimeMs > Date.now() - 60_000, 'the stale bundle was rebuilt')
  const code = readFileSync(bundle, 'utf8')
  assert.doesNotMatch(code, /^import .* from ['"]\.\.?\//m, 'every source of ours is inside the bundle')
  assert.doesNotMatch(code, /\binterface \w+ \{/, 'no TypeScript is left in it')
})

test('an up-to-date bundle is run as it is, not rebuilt', async () => {
  await run(process.execPath, [sikaBin, 'help'], { cwd: root })
  const builtAt = statSync(bundle).mtimeMs

  await run(process.execPath, [sikaBin, 'help'], { cwd: root })

  assert.equal(statSync(bundle).mtimeMs, builtAt)
})
