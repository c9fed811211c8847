import assert from 'node:assert/strict'
import { connect, type Socket } from 'node:net'
import { after, before, test } from 'node:test'
import { Agent, request as undiciRequest } from 'undici'
import type { IssuedMerchant } from '../src/app/merchants.ts'
import { startApp, type TestApp } from './support/app.ts'
import { describeEachStore } from './support/stores.ts'
import { assertStoreConsistent } from './support/verify.ts'
import { sleep } from './support/wait.ts'

// Issue 41, finding 2: 64 connections POST /api/v1/collect with one merchant's valid keys and
// content-length 1000, sending a byte every 2 s. Admission counts a request from the moment its
// body has arrived, so these hold none of the 64 slots, and another merchant's reads are answered
// as usual (before: 503 until Node's 10 s request timeout answered the slow ones 408).
const slowConnections = 64
const byteEveryMs = 2_000
const readEveryMs = 50
const attackMs = 7_000
const p99BoundMs = 500

describeEachStore('admission: slow request bodies hold no slot', (store) => {
  let app: TestApp
  let attacker: IssuedMerchant
  let other: IssuedMerchant
  const sockets: Socket[] = []

  before(async () => {
    // The production limits: 64 requests in work, as many waiting 100 ms at most.
    app = await startApp(store(), { environment: { MAX_IN_FLIGHT: '64', ADMISSION_WAIT_MS: '100' } })
    attacker = await app.createMerchant('Slow bodies')
    other = await app.createMerchant('Reads its balance')
  })
  after(async () => {
    for (const socket of sockets) socket.destroy()
    await app.close()
  })

  /** A collect whose headers arrive at once and whose body never arrives whole: a byte every 2 s. */
  function slowCollect(): Socket {
    const { port } = new URL(app.url)
    const socket = connect(Number(port), '127.0.0.1')
    socket.on('error', () => {})
    socket.write(
      [
        'POST /api/v1/collect HTTP/1.1',
        `host: 127.0.0.1:${port}`,
        `api-key: ${attacker.sandbox.apiKey}`,
        `secret-key: ${attacker.sandbox.secretKey}`,
        'content-type: application/json',
        'content-length: 1000',
        '',
        '{',
      ].join('\r\n'),
    )
    const timer = setInterval(() => socket.write(' '), byteEveryMs)
    socket.on('close', () => clearInterval(timer))
    return socket
  }

  test(`${slowConnections} slow bodies of one merchant: another merchant's reads are never refused`, async () => {
    for (let i = 0; i < slowConnections; i++) sockets.push(slowCollect())
    // Every slow request is in by now, waiting for its body.
    await sleep(500)
    const agent = new Agent({ connections: 1 })
    const answers: { status: number; ms: number }[] = []
    const headers = { 'api-key': other.sandbox.apiKey, 'secret-key': other.sandbox.secretKey }
    const startedAt = Date.now()
    try {
      while (Date.now() - startedAt < attackMs) {
        const sentAt = performance.now()
        const answer = await undiciRequest(`${app.url}/api/v1/balance`, { headers, dispatcher: agent })
        await answer.body.dump()
        answers.push({ status: answer.statusCode, ms: performance.now() - sentAt })
        await sleep(readEveryMs)
      }
    } finally {
      await agent.close()
    }
    const stillOpen = sockets.filter((socket) => !socket.destroyed).length
    const latencies = answers.map((answer) => answer.ms).sort((x, y) => x - y)
    const at = (p: number) => Math.round(latencies[Math.ceil((p / 100) * latencies.length) - 1]!)
    const statuses: Record<number, number> = {}
    for (const answer of answers) statuses[answer.status] = (statuses[answer.status] ?? 0) + 1
    const figures = {
      reads: answers.length,
      statuses,
      p50Ms: at(50),
      p99Ms: at(99),
      maxMs: at(100),
      stillOpen,
    }
    process.stdout.write(`# figures [${store().name}] slow bodies: ${JSON.stringify(figures)}\n`)
    assert.equal(stillOpen, slowConnections, 'the slow requests were still arriving throughout')
    assert.deepEqual(statuses, { 200: answers.length }, 'every read answered 200, none 503')
    assert.ok(at(99) < p99BoundMs, `the other merchant's reads: p99 ${at(99)} ms`)
    await assertStoreConsistent(app)
  })
})
