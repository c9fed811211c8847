import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { RunningSimulator } from '../../src/simulators/simulator.ts'
import { type ApiClient, startApp, type TestApp } from './app.ts'
import { freePort } from './process.ts'
import type { StoreTarget } from './stores.ts'

export interface LiveApp {
  app: TestApp
  /** A new merchant's live keys. */
  live: ApiClient
  close(): Promise<void>
}

/**
 * Sika on a real port whose PUBLIC_BASE_URL is itself (operators call it back there), with an
 * OPERATORS_FILE connecting each simulator the test started, and a merchant with live keys.
 */
export async function startLiveApp(
  target: StoreTarget,
  connect: (publicBaseUrl: string) => Promise<
    {
      simulator: RunningSimulator
      channel: string
      countries: string[]
      /** More fields of the connection's entry (`lowBalanceAlert`). */
      fields?: Record<string, unknown>
    }[]
  >,
): Promise<LiveApp> {
  const port = await freePort()
  const publicBaseUrl = `http://127.0.0.1:${port}`
  const connected = await connect(publicBaseUrl)
  const directory = mkdtempSync(join(tmpdir(), 'sika-operators-'))
  const operatorsFile = join(directory, 'operators.json')
  const connections = connected.map(({ simulator, channel, countries, fields }) => ({
    ...simulator.connection(channel, countries),
    ...fields,
  }))
  writeFileSync(operatorsFile, JSON.stringify({ connections }))
  const app = await startApp(target, {
    environment: {
      OPERATORS_FILE: operatorsFile,
      PORT: String(port),
      PUBLIC_BASE_URL: publicBaseUrl,
      RATE_LIMIT_PER_SECOND: '0',
    },
  })
  const live = app.client((await app.createMerchant('Live merchant')).live)
  return {
    app,
    live,
    close: async () => {
      await app.close()
      for (const { simulator } of connected) await simulator.close()
      rmSync(directory, { recursive: true, force: true })
    },
  }
}

/** Reads the operation until it leaves pending, running due polls as the workers would. */
export async function settledRecord(live: LiveApp, kind: string, token: string, withinMs = 8000) {
  const deadline = Date.now() + withinMs
  for (;;) {
    const record = (await live.live.get(`/api/v1/${kind}/${token}`)).body.data[kind]
    if (record.status !== 'pending' || Date.now() > deadline) return record
    await live.app.workers.runDue()
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/** The operator reference Sika gave the operation's side (its first, or the one of `role`), as stored. */
export async function operatorReferenceOf(app: TestApp, token: string, role?: string): Promise<string> {
  const row = await app.db
    .selectFrom('operations')
    .select('sides')
    .where('token', '=', token)
    .executeTakeFirstOrThrow()
  const sides = JSON.parse(row.sides) as { role: string; operatorReference: string }[]
  const side = role === undefined ? sides[0] : sides.find((entry) => entry.role === role)
  if (!side) throw new Error(`operation ${token} has no ${role ?? ''} side`)
  return side.operatorReference
}

/**
 * Posts to a simulator's control path. Sika keeps an operator reference before its request reaches
 * the operator, so a reference read from Sika may be one the simulator does not know yet: a 404 is
 * asked again until it knows it, within `withinMs`.
 */
export async function controlSimulator(
  simulator: RunningSimulator,
  path: string,
  body: unknown,
  withinMs = 3000,
): Promise<void> {
  const deadline = Date.now() + withinMs
  for (;;) {
    const answer = await fetch(`${simulator.url}/_simulator/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    const text = await answer.text()
    if (answer.ok) return
    if (answer.status !== 404 || Date.now() > deadline)
      throw new Error(`${simulator.name} refused ${path}: ${answer.status} ${text}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}
