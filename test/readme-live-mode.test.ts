import assert from 'node:assert/strict'
import { execFile, spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { freePort } from './support/process.ts'

/**
 * The README's "Live mode" section works as written (issue 10): its shell block runs as it
 * stands, in a fresh directory, with only `npx sika` and `npm start` pointed at this checkout
 * and port 3000 moved to a free one. Two simulators, a merchant, Sika with the printed
 * operators file, a live collect and a live payout.
 */

const repositoryRoot = fileURLToPath(new URL('..', import.meta.url))
const run = promisify(execFile)

function liveModeBlock(): string {
  const readme = readFileSync(join(repositoryRoot, 'README.md'), 'utf8')
  const section = readme.slice(readme.indexOf('## Live mode'))
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1]
  assert.ok(block, 'the Live mode section has a shell block')
  return block
}

function liveModeScript(port: number): string {
  const block = liveModeBlock()
  const sika = `node ${join(repositoryRoot, 'bin/sika.mjs')}`
  return block
    .replaceAll('npx sika', sika)
    .replaceAll('npm start', `${sika} serve`)
    .replaceAll(':3000', `:${port}`)
    .replaceAll('PORT=3000', `PORT=${port}`)
}

test('every file the Live mode section writes is one git ignores: they hold live secrets and logs', async () => {
  const written = [...liveModeBlock().matchAll(/(?:>|--operators-file)\s+([^\s&;|)]+)/g)]
    .map((match) => match[1]!)
    .filter((path) => !path.startsWith('/dev/'))
  assert.ok(written.length >= 4, `the block writes its files: ${written.join(', ')}`)
  const ignored = await Promise.all(
    written.map((path) =>
      run('git', ['check-ignore', '--no-index', '--quiet', path], { cwd: repositoryRoot }).then(
        () => true,
        () => false,
      ),
    ),
  )
  assert.deepEqual(
    written.filter((_, index) => !ignored[index]),
    [],
    'these would be left as untracked files in the clone',
  )
})

test('the README’s Live mode section runs as written: a live MTN MoMo collect, a Wave payout, an MTN refund', async () => {
  const directory = mkdtempSync(join(tmpdir(), 'sika-readme-live-'))
  const port = await freePort()
  const child = spawn('bash', ['-c', liveModeScript(port)], {
    cwd: directory,
    // /metrics listens apart (127.0.0.1:9464 by default): any free port, so runs side by side never clash.
    env: { PATH: process.env.PATH, HOME: directory, METRICS_PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  })
  let output = ''
  child.stdout.on('data', (chunk) => {
    output += chunk
  })
  child.stderr.on('data', (chunk) => {
    output += chunk
  })
  const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 90_000)
  try {
    const [code] = await once(child, 'exit')
    assert.equal(code, 0, output)
    const answers = output
      .split('\n')
      .filter((line) => line.startsWith('{"success"'))
      .map((line) => JSON.parse(line))
    const [
      collected,
      collectList,
      firstBalance,
      paid,
      payoutList,
      payoutBalance,
      refunded,
      refundList,
      lastBalance,
    ] = answers
    assert.equal(collected?.data.collect.status, 'pending', output)
    assert.equal(collectList?.data.collects[0].status, 'succeeded', output)
    assert.ok(collectList?.data.collects[0].operatorReference, 'the record names the payment at MTN')
    const xof = (answer: any) => answer?.data.balances.find((row: any) => row.currency === 'XOF')
    assert.deepEqual(xof(firstBalance), { currency: 'XOF', balance: 4925, held: 0, available: 4925 })
    assert.equal(paid?.data.disbursement.operation, 'disbursement', output)
    assert.equal(payoutList?.data.disbursements[0].status, 'succeeded', output)
    assert.deepEqual(xof(payoutBalance), { currency: 'XOF', balance: 2915, held: 0, available: 2915 })
    assert.equal(refunded?.data.refund.collect, collectList.data.collects[0].token, output)
    assert.equal(refundList?.data.refunds[0].status, 'succeeded', output)
    assert.deepEqual(xof(lastBalance), { currency: 'XOF', balance: 1915, held: 0, available: 1915 })
  } finally {
    clearTimeout(timer)
    try {
      process.kill(-child.pid!, 'SIGKILL')
    } catch {
      // the group has already ended
    }
    rmSync(directory, { recursive: true, force: true })
  }
})
