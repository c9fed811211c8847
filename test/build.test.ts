import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { readFileSync, rmSync, statSync, utimesSync } from 'node:fs'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

const run = promisify(execFile)
const root = fileURLToPath(new URL('..', import.meta.url))
const sikaBin = `${root}bin/sika.mjs`
const bundle = `${root}dist/sika.mjs`
/** What a delivery thread loads (DELIVERY_THREAD=on): its own module's bundle, built with the service's. */
const threadBundle = `${root}dist/delivery-thread.mjs`
/** What threads run first, found beside the service's bundle: the delivery thread's start, the WAL checkpointer. */
const threadStartBundles = [`${root}dist/delivery-thread-start.mjs`, `${root}dist/wal-checkpoint-thread.mjs`]

test('`sika` runs a plain-JavaScript bundle of src/, rebuilt when a source is newer than it', async () => {
  await run(process.execPath, [sikaBin, 'help'], { cwd: root })
  // Older than any source however long ago the checkout was made: an hour ago is not, for a clone older than that.
  const longBeforeAnySource = new Date('2000-01-01T00:00:00Z')
  utimesSync(bundle, longBeforeAnySource, longBeforeAnySource)

  const { stdout } = await run(process.execPath, [sikaBin, 'help'], { cwd: root })

  assert.match(stdout, /Usage: sika <command>/)
  assert.ok(statSync(bundle).mtimeMs > Date.now() - 60_000, 'the stale bundle was rebuilt')
  assert.ok(statSync(threadBundle).mtimeMs > Date.now() - 60_000, 'and the thread’s with it')
  for (const built of threadStartBundles)
    assert.ok(statSync(built).mtimeMs > Date.now() - 60_000, `and ${built} with them`)
  for (const built of [bundle, threadBundle, ...threadStartBundles]) {
    const code = readFileSync(built, 'utf8')
    assert.doesNotMatch(code, /^import .* from ['"]\.\.?\//m, 'every source of ours is inside the bundle')
    assert.doesNotMatch(code, /\binterface \w+ \{/, 'no TypeScript is left in it')
  }
  assert.match(readFileSync(threadBundle, 'utf8'), /export \{[^}]*\brunDeliveryThread\b/)
  assert.doesNotMatch(readFileSync(threadBundle, 'utf8'), /from "fastify"/, 'the thread loads no HTTP server')
})

test('a missing thread bundle is built again, though the service’s is fresh', async () => {
  await run(process.execPath, [sikaBin, 'help'], { cwd: root })
  rmSync(threadBundle)
  await run(process.execPath, [sikaBin, 'help'], { cwd: root })
  assert.ok(statSync(threadBundle).isFile())
})

test('an up-to-date bundle is run as it is, not rebuilt', async () => {
  await run(process.execPath, [sikaBin, 'help'], { cwd: root })
  const builtAt = statSync(bundle).mtimeMs

  await run(process.execPath, [sikaBin, 'help'], { cwd: root })

  assert.equal(statSync(bundle).mtimeMs, builtAt)
})
