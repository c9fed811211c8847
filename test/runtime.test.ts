import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { delimiter, join } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { Worker } from 'node:worker_threads'
import { requiredNodeMajor, unsupportedNode } from '../scripts/node-version.mjs'

/**
 * Sika runs on Node.js 24 LTS (CONTRACT.md, Runtime and configuration): `npm install` brings it
 * from the npm registry into node_modules/.bin, where npm scripts and `npx` find it first, whatever
 * `node` the machine has.
 */

const run = promisify(execFile)
const root = fileURLToPath(new URL('..', import.meta.url))
const majorOf = (version: string) => Number(/^v?(\d+)/.exec(version)?.[1])
/** The PATH without this checkout's node_modules/.bin: what a shell has before npm adds it. */
const machinePath = (process.env.PATH ?? '')
  .split(delimiter)
  .filter((folder) => !folder.startsWith(join(root, 'node_modules')))
  .join(delimiter)

test('the tests, the processes they start and their threads run on the Node.js package.json names', async () => {
  assert.equal(requiredNodeMajor, 24)
  assert.ok(majorOf(process.version) >= requiredNodeMajor, `the test runner is on ${process.version}`)
  const worker = new Worker(
    'import { parentPort } from "node:worker_threads"; parentPort.postMessage(process.version)',
    {
      eval: true,
    },
  )
  const [threadVersion] = (await new Promise((resolve) => worker.once('message', (m) => resolve([m])))) as [
    string,
  ]
  await worker.terminate()
  assert.equal(threadVersion, process.version)
  // Every process a test starts (the sika bin, crashes, the bench's smoke run) is process.execPath.
  const { stdout } = await run(process.execPath, ['-p', 'process.version'])
  assert.equal(stdout.trim(), process.version)
  console.log(`test runner, worker thread and child process: ${process.version}`)
})

test('npm exec (npx) runs the Node.js that npm install brought, not the machine’s own', async () => {
  const { stdout } = await run(
    'npm',
    ['exec', '--offline', '--', 'node', '-p', 'process.version + " " + process.execPath'],
    {
      cwd: root,
      env: { ...process.env, PATH: machinePath },
    },
  )
  const [version, execPath] = stdout.trim().split(' ')
  assert.ok(majorOf(version ?? '') >= requiredNodeMajor, `npx node is ${version}`)
  assert.match(execPath ?? '', /node_modules\/node-linux-(x64|arm64)\/bin\/node$/)
  console.log(`npx node: ${version} at ${execPath}`)
})

test('an older Node.js is told, in one line, to run Sika through npm', () => {
  assert.equal(unsupportedNode('v24.0.0', '/x/node'), undefined)
  assert.equal(unsupportedNode('v26.1.0', '/x/node'), undefined)
  const problem = unsupportedNode('v20.20.2', '/usr/bin/node')
  assert.match(problem ?? '', /^Sika runs on Node\.js 24 or later; this is v20\.20\.2 \(\/usr\/bin\/node\)\./)
  assert.match(problem ?? '', /`npm start`, `npm test` and `npx sika \.\.\.` use the Node\.js 24/)
})

test('the sika command refuses the machine’s own node when it is older, before touching anything', async (t) => {
  const machineNode = await run('node', ['-p', 'process.version'], { env: { PATH: machinePath } }).catch(
    () => undefined,
  )
  const version = machineNode?.stdout.trim()
  if (version === undefined || majorOf(version) >= requiredNodeMajor)
    return t.skip(`the machine's own node is ${version ?? 'missing'}: nothing older to refuse`)
  const refused = await run('node', [join(root, 'bin/sika.mjs'), 'merchant', 'list'], {
    env: { PATH: machinePath, DATABASE_URL: ':memory:' },
  }).catch((error: { code: number; stderr: string }) => error)
  assert.equal((refused as { code: number }).code, 1)
  assert.match(
    (refused as { stderr: string }).stderr,
    new RegExp(`^sika: Sika runs on Node\\.js 24 or later; this is ${version}`),
  )
})
