import type { ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Sqlite from 'better-sqlite3'
import pg from 'pg'
import type { Side } from '../../src/domain/operation.ts'
import type { RunningSimulator } from '../../src/simulators/simulator.ts'
import { testSecretsKey } from './app.ts'
import { runSika } from './cli.ts'
import { hasExited, signalGroup, spawnSika } from './process.ts'
import type { StoreTarget } from './stores.ts'

/** One `sika serve` process, the leader of its own process group. */
export interface GroupedService {
  readonly url: string
  readonly pid: number
  /** Everything it printed, stdout then stderr: for failure messages. */
  output(): string
  /** Signals the whole group and resolves once the process has exited. */
  kill(signal: NodeJS.Signals): Promise<void>
  /** SIGTERM to the group; SIGKILL to the group if it has not exited within `graceMs`. */
  stop(graceMs?: number): Promise<void>
}

/** Every grouped service this test process started and has not stopped: `stopAllGroupedServices`. */
const services = new Set<ChildProcess>()

/**
 * Starts `node bin/sika.mjs serve` in its own process group (detached), as an operator runs it,
 * and resolves once it logs that it is ready. Only the given environment reaches it.
 */
export async function startGroupedService(
  environment: Record<string, string>,
  port: number,
  readyWithinMs = 30_000,
): Promise<GroupedService> {
  const url = `http://127.0.0.1:${port}`
  const child = spawnSika(['serve'], {
    env: {
      PATH: process.env.PATH,
      HOST: '127.0.0.1',
      PORT: String(port),
      // /metrics listens apart: any free port, so services started side by side never clash.
      METRICS_PORT: '0',
      PUBLIC_BASE_URL: url,
      SECRETS_KEY: testSecretsKey,
      LOG_LEVEL: 'info',
      ...environment,
    },
  })
  services.add(child)
  const exited = once(child, 'exit').then(() => {
    services.delete(child)
  })
  let stdout = ''
  let stderr = ''
  child.stdout?.on('data', (chunk) => {
    stdout += chunk
  })
  child.stderr?.on('data', (chunk) => {
    stderr += chunk
  })
  const output = () => `${stdout}\n${stderr}`
  const kill = async (signal: NodeJS.Signals) => {
    if (!hasExited(child)) signalGroup(child, signal)
    await exited
    // Anything the leader started goes with it.
    signalGroup(child, 'SIGKILL')
  }
  const deadline = Date.now() + readyWithinMs
  while (!stdout.includes('Sika is ready')) {
    if (hasExited(child)) throw new Error(`sika serve exited with ${child.exitCode}:\n${output()}`)
    if (Date.now() > deadline) {
      await kill('SIGKILL')
      throw new Error(`sika serve did not become ready in ${readyWithinMs} ms:\n${output()}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  return {
    url,
    pid: child.pid!,
    output,
    kill,
    stop: async (graceMs = 10_000) => {
      if (hasExited(child)) return kill('SIGKILL')
      const timer = setTimeout(() => signalGroup(child, 'SIGKILL'), graceMs)
      try {
        await kill('SIGTERM')
      } finally {
        clearTimeout(timer)
      }
    },
  }
}

/** Stops every group still running (SIGTERM, then SIGKILL): for `after`. */
export async function stopAllGroupedServices(graceMs = 5000): Promise<void> {
  await Promise.all(
    [...services].map(async (child) => {
      const exited = hasExited(child) ? Promise.resolve() : once(child, 'exit')
      signalGroup(child, 'SIGTERM')
      const timer = setTimeout(() => signalGroup(child, 'SIGKILL'), graceMs)
      await exited
      clearTimeout(timer)
      signalGroup(child, 'SIGKILL')
      services.delete(child)
    }),
  )
}

/** An OPERATORS_FILE connecting each simulator, in a temporary directory of its own. */
export function writeOperatorsFile(
  connected: readonly { simulator: RunningSimulator; channel: string; countries: readonly string[] }[],
): { file: string; remove(): void } {
  const directory = mkdtempSync(join(tmpdir(), 'sika-operators-'))
  const file = join(directory, 'operators.json')
  const connections = connected.map(({ simulator, channel, countries }) =>
    simulator.connection(channel, countries),
  )
  writeFileSync(file, JSON.stringify({ connections }))
  return { file, remove: () => rmSync(directory, { recursive: true, force: true }) }
}

/** `sika merchant create --json` as a real process over the store: the merchant's keys, both modes. */
export async function createMerchantWithCli(
  databaseUrl: string,
  name: string,
): Promise<{ id: string; live: { apiKey: string; secretKey: string } }> {
  const created = await runSika(databaseUrl, ['merchant', 'create', '--name', name, '--json'])
  if (created.code !== 0) throw new Error(`sika merchant create exited ${created.code}: ${created.stderr}`)
  return JSON.parse(created.stdout)
}

/**
 * Reads operations as the store holds them, beside the service (a second connection; SQLite in
 * WAL mode lets a reader run next to the writer): what Sika wrote before it was killed.
 */
export interface StoreReader {
  /** The operation's token and sides, once it was written; undefined before. */
  operation(merchantReference: string): Promise<{ token: string; status: string; sides: Side[] } | undefined>
  close(): Promise<void>
}

export async function openStoreReader(target: StoreTarget): Promise<StoreReader> {
  const query = `select token, status, sides from operations where merchant_reference = `
  const parse = (row: { token: string; status: string; sides: string } | undefined) =>
    row ? { token: row.token, status: row.status, sides: JSON.parse(row.sides) as Side[] } : undefined
  if (target.name === 'postgres') {
    const client = new pg.Client({ connectionString: target.databaseUrl })
    // The suite's database is dropped (its connections terminated) when it ends.
    client.on('error', () => {})
    await client.connect()
    return {
      operation: async (reference) => parse((await client.query(`${query}$1`, [reference])).rows[0]),
      close: () => client.end().catch(() => {}),
    }
  }
  let database: Sqlite.Database | undefined
  return {
    operation: async (reference) => {
      // Opened lazily: the file exists once a process has migrated it.
      if (!database) {
        database = new Sqlite(target.databaseUrl, { readonly: true, fileMustExist: true })
        database.pragma('busy_timeout = 5000')
      }
      return parse(database.prepare(`${query}?`).get(reference) as never)
    },
    close: async () => {
      database?.close()
    },
  }
}
