import assert from 'node:assert/strict'
import { once } from 'node:events'
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { spawnSika, stopGroup } from './support/process.ts'

/**
 * `sika simulate <operator>` (issue 10, Simulators): runs the simulator as a real server on
 * 127.0.0.1, prints an OPERATORS_FILE that connects to it, and stops cleanly on SIGTERM.
 */

async function simulate(args: string[]) {
  const child = spawnSika(['simulate', ...args], { env: { PATH: process.env.PATH } })
  let output = ''
  child.stdout.on('data', (chunk) => {
    output += chunk
  })
  const deadline = Date.now() + 20_000
  while (!output.includes('Stop with Ctrl-C.')) {
    if (child.exitCode !== null) throw new Error(`simulate exited with ${child.exitCode}: ${output}`)
    if (Date.now() > deadline) {
      await stopGroup(child, 'SIGKILL')
      throw new Error(`simulate printed no entry in 20 s: ${output}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  const json = output.slice(output.indexOf('{'), output.indexOf('\n}\n') + 2)
  const operators = JSON.parse(json) as { connections: Record<string, any>[] }
  const stop = async () => {
    await stopGroup(child, 'SIGTERM')
    return child.exitCode
  }
  return { output, operators, stop }
}

test('simulate mtn-momo prints a connection whose credentials the running simulator accepts', async () => {
  const run = await simulate(['mtn-momo', '--port', '0', '--countries', 'CI,CM'])
  try {
    const [entry] = run.operators.connections
    assert.equal(entry?.adapter, 'mtn-momo')
    assert.equal(entry?.channel, 'mtn-momo')
    assert.deepEqual(entry?.countries, ['CI', 'CM'])
    assert.match(entry?.baseUrl, /^http:\/\/127\.0\.0\.1:\d+$/)
    const { apiUser, apiKey, subscriptionKey } = entry!.collection
    const token = await fetch(`${entry!.baseUrl}/collection/token/`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${apiUser}:${apiKey}`).toString('base64')}`,
        'ocp-apim-subscription-key': subscriptionKey,
      },
    })
    assert.equal(token.status, 200)
    assert.equal(((await token.json()) as { expires_in: number }).expires_in, 3600)
    assert.match(run.output, /\.\.\.101 {2}declined/)
  } finally {
    assert.equal(await run.stop(), 0, 'SIGTERM stops it cleanly')
  }
})

test('each operator has its simulator, with its own connection entry', async () => {
  for (const [name, adapter] of [
    ['wave', 'wave'],
    ['orange-money', 'orange-money'],
    ['pawapay', 'pawapay'],
  ] as const) {
    const run = await simulate([name, '--port', '0'])
    try {
      const [entry] = run.operators.connections
      assert.equal(entry?.adapter, adapter)
      const answered = await fetch(`${entry!.baseUrl}/_simulator/requests`)
      assert.equal(answered.status, 200, `${name} answers on its base URL`)
    } finally {
      assert.equal(await run.stop(), 0)
    }
  }
})

test('several operators at once: one OPERATORS_FILE written for all, their notifications sent to --sika-url', async () => {
  const directory = mkdtempSync(join(tmpdir(), 'sika-simulate-'))
  const file = join(directory, 'operators.json')
  const run = await simulate([
    'mtn-momo',
    'wave',
    '--operators-file',
    file,
    '--sika-url',
    'http://127.0.0.1:9',
  ])
  try {
    const written = JSON.parse(readFileSync(file, 'utf8')) as { connections: Record<string, any>[] }
    assert.deepEqual(written, run.operators, 'the file holds what was printed')
    assert.deepEqual(
      written.connections.map((entry) => [entry.adapter, entry.channel, entry.countries]),
      [
        ['mtn-momo', 'mtn-momo', ['CI']],
        ['wave', 'wave', ['SN']],
      ],
    )
    assert.notEqual(written.connections[0]!.baseUrl, written.connections[1]!.baseUrl)
    assert.equal((statSync(file).mode & 0o777).toString(8), '600', 'it holds secrets')
  } finally {
    assert.equal(await run.stop(), 0)
    rmSync(directory, { recursive: true, force: true })
  }
})

test('an unknown operator or a bad port is a usage error (exit 2) that says which', async () => {
  const table: { args: string[]; says: RegExp }[] = [
    { args: ['nope'], says: /^sika simulate: unknown operator: nope; the operators are mtn-momo, wave/ },
    { args: ['wave', '--port', 'x'], says: /^sika simulate: --port x is not a TCP port/ },
    { args: [], says: /^sika simulate: needs OPERATOR\.\.\.: one or more of mtn-momo/ },
    { args: ['wave', 'wave'], says: /^sika simulate: wave is named twice/ },
  ]
  for (const { args, says } of table) {
    const child = spawnSika(['simulate', ...args], { env: { PATH: process.env.PATH } })
    let stderr = ''
    child.stderr.on('data', (chunk) => {
      stderr += chunk
    })
    const [code] = await once(child, 'exit')
    assert.equal(code, 2, args.join(' '))
    assert.match(stderr, says)
    assert.match(stderr, /\n\nUsage: sika simulate OPERATOR\.\.\./, 'and the usage of simulate alone')
  }
})
