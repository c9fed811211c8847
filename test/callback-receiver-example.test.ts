import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { Webhook } from 'standardwebhooks'
import { freePort } from './support/process.ts'
import { waitFor } from './support/wait.ts'

/**
 * examples/callback-receiver.ts, as the README runs it: on 127.0.0.1 (this machine only) and the
 * port RECEIVER_PORT gives (4000 by default), it acknowledges a signed callback once per event id
 * and refuses a bad signature.
 */

const repositoryRoot = fileURLToPath(new URL('..', import.meta.url))
const secret = `whsec_${Buffer.from('a secret of 24 bytes, ok').toString('base64')}`

test('the example receiver listens on 127.0.0.1 at RECEIVER_PORT, acts once per event, refuses a bad signature', async () => {
  const port = await freePort()
  const child = spawn(process.execPath, ['--import', 'tsx', 'examples/callback-receiver.ts'], {
    cwd: repositoryRoot,
    env: { PATH: process.env.PATH, SIKA_WEBHOOK_SECRET: secret, RECEIVER_PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (chunk) => {
    output += chunk
  })
  child.stderr.on('data', (chunk) => {
    output += chunk
  })
  try {
    await waitFor('the receiver to listen', () => output.includes('listening'), 30_000)
    const url = `http://127.0.0.1:${port}/sika/callback`
    assert.match(output, new RegExp(`listening for Sika callbacks on ${url.replaceAll('.', '\\.')}`))
    const body = JSON.stringify({
      id: 'evt_1',
      type: 'collect.succeeded',
      data: { collect: { token: 'col_1', status: 'succeeded' } },
    })
    const sentAt = new Date()
    const headers = {
      'content-type': 'application/json',
      'webhook-id': 'evt_1',
      'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign('evt_1', sentAt, body),
    }
    for (let delivery = 0; delivery < 2; delivery++)
      assert.equal((await fetch(url, { method: 'POST', headers, body })).status, 204)
    const forged = await fetch(url, { method: 'POST', headers, body: body.replace('succeeded', 'failed') })
    assert.equal(forged.status, 400)
    assert.equal(output.match(/collect\.succeeded: col_1 is succeeded/g)?.length, 1, output)
  } finally {
    child.kill('SIGTERM')
  }
})
