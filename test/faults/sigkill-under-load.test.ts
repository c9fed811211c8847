import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { createServer, type Server, type ServerResponse } from 'node:http'
import { after, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { Webhook } from 'standardwebhooks'
import { testSecretsKey } from '../support/app.ts'
import { demoCredentials, freePort, type ServiceProcess, startService } from '../support/process.ts'
import { describeEachStore } from '../support/stores.ts'
import { sleep, waitFor } from '../support/wait.ts'

/**
 * Issue 12: `sika serve` killed with SIGKILL again and again under retried load, while the
 * merchant's callback receiver refuses, answers 503, hangs past the 10 s delivery timeout, then
 * recovers. Clients retry each request (same merchantReference) until it is answered, as a
 * merchant's integration would. Afterwards every acknowledged operation is there once, every
 * retried reference made one operation, every status has its event, no event was lost or
 * altered, and `sika verify` is clean. SIGKILLS sets the number of kills per store (npm test:
 * 20; npm run torture: more).
 */

const kills = Number(process.env.SIGKILLS ?? 20)
const clients = 6
const repositoryRoot = fileURLToPath(new URL('../..', import.meta.url))

type ReceiverMode = 'ok' | 'refuse' | 'unavailable' | 'hang'

/** A merchant's receiver whose behaviour the test switches; it verifies every signature it gets. */
async function startReceiver(port: number) {
  const received = new Map<string, string>()
  const held: ServerResponse[] = []
  let secret = ''
  let mode: ReceiverMode = 'ok'
  let server: Server | undefined
  let forged = 0
  const listen = async () => {
    server = createServer((request, response) => {
      let body = ''
      request.on('data', (chunk) => {
        body += chunk
      })
      request.on('end', () => {
        try {
          const event = new Webhook(secret).verify(body, request.headers as Record<string, string>) as {
            id: string
          }
          const earlier = received.get(event.id)
          if (earlier !== undefined && earlier !== body) forged++
          if (mode === 'ok') received.set(event.id, body)
        } catch {
          forged++
        }
        if (mode === 'hang') held.push(response)
        else response.writeHead(mode === 'ok' ? 200 : 503).end()
      })
    })
    server.listen(port, '127.0.0.1')
    await once(server, 'listening')
  }
  await listen()
  return {
    url: `http://127.0.0.1:${port}/callback`,
    received,
    forged: () => forged,
    useSecret: (value: string) => {
      secret = value
    },
    /** 'refuse' closes the port: connections are refused. */
    async setMode(next: ReceiverMode) {
      if (next === mode) return
      if (mode === 'refuse') await listen()
      if (mode === 'hang') for (const response of held.splice(0)) response.destroy()
      mode = next
      if (next === 'refuse' && server) {
        server.closeAllConnections()
        await new Promise((resolve) => server?.close(resolve))
        server = undefined
      }
    },
    async close() {
      for (const response of held.splice(0)) response.destroy()
      server?.closeAllConnections()
      await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)))
    },
  }
}

interface Figures {
  requests: number
  acknowledged: number
  retries: number
  unavailable: number
}

/**
 * One client: initiates operations one after another, each retried with the same body until it
 * is answered (a lost connection, a refused one or a 503 is retried), as long as `running()`.
 */
async function client(
  index: number,
  service: () => string,
  keys: Record<string, string>,
  callbackUrl: string,
  running: () => boolean,
  acknowledged: Map<string, string>,
  figures: Figures,
): Promise<void> {
  for (let sequence = 0; running(); sequence++) {
    const merchantReference = `load-${index}-${sequence}`
    const kind = sequence % 3 === 2 ? 'disbursement' : 'collect'
    // Endings 900 settle later (scheduled work), others at once.
    const phoneNumber = `22507000${index}${String(sequence % 10)}${sequence % 4 === 0 ? '900' : '001'}`
    const body = JSON.stringify({
      amount: 1000 + sequence,
      channel: 'orange-money',
      country: 'CI',
      customer: { phoneNumber },
      merchantReference,
      callbackUrl,
    })
    for (let attempt = 0; ; attempt++) {
      if (attempt > 0) figures.retries++
      figures.requests++
      try {
        const response = await fetch(`${service()}/api/v1/${kind}`, {
          method: 'POST',
          headers: { ...keys, 'content-type': 'application/json' },
          body,
          signal: AbortSignal.timeout(8_000),
        })
        const answer = (await response.json()) as any
        if (response.status === 503) {
          figures.unavailable++
          await sleep(100)
          continue
        }
        assert.equal(response.status, 200, JSON.stringify(answer))
        acknowledged.set(merchantReference, answer.data[kind].token)
        figures.acknowledged++
        break
      } catch (error) {
        if (error instanceof assert.AssertionError) throw error
        await sleep(50) // the service is down or restarting: the same request again
      }
    }
  }
}

describeEachStore('SIGKILL under retried load, with a failing callback receiver', (store) => {
  const started: ServiceProcess[] = []
  let receiver: Awaited<ReturnType<typeof startReceiver>> | undefined
  after(async () => {
    for (const service of started) await service.kill('SIGKILL')
    await receiver?.close()
  })

  test(`${kills} SIGKILLs: nothing acknowledged is lost, nothing is doubled, no event is lost`, {
    timeout: 180_000 + kills * 8_000,
  }, async (t) => {
    const environment = {
      DATABASE_URL: store().databaseUrl,
      SANDBOX_DELAY_MS: '300',
      RATE_LIMIT_PER_SECOND: '0',
    }
    const port = await freePort()
    let service = await startService(environment, port)
    started.push(service)
    const demo = demoCredentials(service.output())
    const keys = { 'api-key': demo.apiKey, 'secret-key': demo.secretKey }
    receiver = await startReceiver(await freePort())
    receiver.useSecret(demo.webhookSecret)

    const acknowledged = new Map<string, string>()
    const figures: Figures = { requests: 0, acknowledged: 0, retries: 0, unavailable: 0 }
    let loadRunning = true
    const load = Array.from({ length: clients }, (_, index) =>
      client(
        index,
        () => service.url,
        keys,
        receiver!.url,
        () => loadRunning,
        acknowledged,
        figures,
      ),
    )
    const modes: ReceiverMode[] = ['ok', 'refuse', 'unavailable', 'hang', 'ok']
    for (let kill = 0; kill < kills; kill++) {
      await receiver.setMode(modes[Math.floor((kill * modes.length) / kills)]!)
      await sleep(200 + Math.random() * 500)
      await service.kill('SIGKILL')
      service = await startService(environment, port)
      started.push(service)
    }
    loadRunning = false
    await Promise.all(load)
    await receiver.setMode('ok')

    const api = (path: string, init?: RequestInit) =>
      fetch(`${service.url}${path}`, {
        ...init,
        headers: { ...keys, 'content-type': 'application/json' },
      }).then((response) => response.json() as Promise<any>)
    // Every acknowledged operation is there, under its reference, once; pending ones settle.
    for (const [merchantReference, token] of acknowledged) {
      const listed = await api(`/api/v1/collect?merchantReference=${merchantReference}`)
      const listedPayouts = await api(`/api/v1/disbursement?merchantReference=${merchantReference}`)
      const found = [...listed.data.collects, ...listedPayouts.data.disbursements]
      assert.equal(found.length, 1, `${merchantReference} made exactly one operation`)
      assert.equal(found[0].token, token)
    }
    await waitFor(
      'every operation to settle',
      async () => {
        const pending = await api('/api/v1/collect?status=pending&perPage=1')
        const pendingPayouts = await api('/api/v1/disbursement?status=pending&perPage=1')
        return pending.meta.pagination.total === 0 && pendingPayouts.meta.pagination.total === 0
      },
      // Work a killed instance had claimed waits for its lease (60 s) to lapse.
      90_000,
    )
    // Every event the receiver missed (refused, 503, hung, or cut by a kill) is still there to
    // deliver: asked again now that the receiver is back, each arrives, signed and unchanged.
    const undelivered: string[] = []
    for (let page = 1; ; page++) {
      const events = await api(`/api/v1/events?perPage=100&page=${page}`)
      for (const event of events.data.events)
        if (event.callbackUrl && !receiver.received.has(event.id)) undelivered.push(event.id)
      if (page >= events.meta.pagination.lastPage) break
    }
    for (const id of undelivered) await api(`/api/v1/events/${id}/redeliver`, { method: 'POST' })
    try {
      // A delivery a killed instance had claimed waits for its lease (30 s) to lapse.
      await waitFor(
        'every event at the receiver',
        () => undelivered.every((id) => receiver!.received.has(id)),
        90_000,
      )
    } catch (error) {
      const missing = undelivered.filter((id) => !receiver!.received.has(id))
      const states = await Promise.all(missing.slice(0, 4).map((id) => api(`/api/v1/events/${id}`)))
      throw new Error(`${missing.length} events never arrived: ${JSON.stringify(states).slice(0, 3000)}`, {
        cause: error,
      })
    }
    assert.equal(receiver.forged(), 0, 'every callback verified, and no event changed between attempts')

    await service.kill('SIGTERM')
    const verify = spawnSync(process.execPath, ['bin/sika.mjs', 'verify'], {
      cwd: repositoryRoot,
      env: { PATH: process.env.PATH, DATABASE_URL: store().databaseUrl, SECRETS_KEY: testSecretsKey },
      encoding: 'utf8',
    })
    assert.equal(verify.status, 0, verify.stdout + verify.stderr)
    t.diagnostic(
      `[${store().name}] ${kills} SIGKILLs, ${figures.requests} requests (${figures.retries} retries, ${figures.unavailable} 503s), ` +
        `${figures.acknowledged} acknowledged, all found once; ${receiver.received.size} events delivered, ${undelivered.length} of them redelivered after the receiver recovered; verify clean`,
    )
  })
})
