import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { once } from 'node:events'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { freePort } from '../../test/support/process.ts'
import { benchJson, type LoadResult, runOpenLoop, runWrk, writeRequests } from './load.ts'

const benchFolder = fileURLToPath(new URL('..', import.meta.url))

/** Bare Fastify answering a fixed JSON record of the given size, under the same wrk load. */
export async function bareFastify(
  folder: string,
  bodyFile: string,
  seconds: number,
  connections: number,
  warmupSeconds: number,
): Promise<LoadResult> {
  const port = await freePort()
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(benchFolder, 'baseline-fastify.ts'), String(port), bodyFile],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  )
  try {
    await readyLine(child, 'baseline ready')
    const requestsFile = writeRequests(folder, 'baseline', [{ method: 'GET', path: '/record' }])
    const load = (duration: number) =>
      runWrk({
        baseUrl: `http://127.0.0.1:${port}`,
        requestsFile,
        seconds: duration,
        connections,
        nonce: 'b',
      })
    // Warmed up as Sika's scenarios are.
    if (warmupSeconds > 0) await load(warmupSeconds)
    return await load(seconds)
  } finally {
    child.kill('SIGKILL')
  }
}

/**
 * The open loop's own latency at a rate, against bare Fastify (which answers ten times faster than
 * Sika can): what the generator adds, on these two shared cores, to every figure it measures.
 */
export async function openLoopFloor(
  folder: string,
  bodyFile: string,
  perSecond: number,
  seconds: number,
): Promise<LoadResult & { admittedP99Ms: number }> {
  const port = await freePort()
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(benchFolder, 'baseline-fastify.ts'), String(port), bodyFile],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  )
  try {
    await readyLine(child, 'baseline ready')
    const requestsFile = writeRequests(folder, 'floor', [{ method: 'GET', path: '/record' }])
    return await runOpenLoop({
      baseUrl: `http://127.0.0.1:${port}`,
      requestsFile,
      seconds,
      perSecond,
      keys: { apiKey: '', secretKey: '' },
      nonce: 'floor',
    })
  } finally {
    child.kill('SIGKILL')
  }
}

async function readyLine(child: ChildProcess, text: string): Promise<void> {
  let seen = ''
  const deadline = setTimeout(() => child.kill('SIGKILL'), 20_000)
  for await (const chunk of child.stdout!) {
    seen += chunk
    if (seen.includes(text)) break
  }
  clearTimeout(deadline)
  if (!seen.includes(text)) throw new Error(`baseline did not start: ${seen}`)
}

export interface SqliteBaseline {
  operationsPerSecond: number
  commitP50Us: number
  commitP99Us: number
}

let rawRuns = 0

/** Raw better-sqlite3, the writes of one collect, `perCommit` of them per durable transaction. */
export async function rawSqlite(folder: string, seconds: number, perCommit: number): Promise<SqliteBaseline> {
  // A fresh file for every measurement (a run measures its baselines more than once).
  const file = join(folder, `raw-${perCommit}-${rawRuns++}.db`)
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(benchFolder, 'baseline-sqlite.ts'), file, String(seconds), String(perCommit)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  )
  let output = ''
  child.stdout.on('data', (chunk) => {
    output += chunk
  })
  const [code] = await once(child, 'exit')
  if (code !== 0) throw new Error(`baseline-sqlite exited ${code}`)
  return benchJson<SqliteBaseline>(output)
}

export interface PgbenchResult {
  transactionsPerSecond: number
  latencyAverageMs: number
}

/**
 * pgbench on its own database, initialised by `initialisePgbench` (its scale is its number of
 * branches: every TPC-B-like transaction updates one branch row, as every initiation of one
 * merchant updates that merchant's counters), with the same client count.
 */
export function pgbench(
  adminUrl: string,
  seconds: number,
  clients: number,
  selectOnly: boolean,
): PgbenchResult {
  const args = connectionArgs(adminUrl)
  const output = execFileSync(
    'pgbench',
    [
      ...args,
      '-c',
      String(clients),
      '-j',
      '2',
      '-T',
      String(seconds),
      '-M',
      'prepared',
      ...(selectOnly ? ['-S'] : []),
      'sika_bench_pgbench',
    ],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
  )
  const tps = /tps = ([\d.]+)/.exec(output)
  const latency = /latency average = ([\d.]+) ms/.exec(output)
  if (!tps || !latency) throw new Error(`pgbench printed no tps:\n${output}`)
  return { transactionsPerSecond: Number(tps[1]), latencyAverageMs: Number(latency[1]) }
}

/** psql's and pgbench's -h -p -U for a postgres:// URL. */
function connectionArgs(adminUrl: string): string[] {
  const url = new URL(adminUrl)
  return ['-h', url.hostname, '-p', url.port || '5432', '-U', decodeURIComponent(url.username || 'postgres')]
}

const psql = (args: string[], command: string) =>
  execFileSync('psql', [...args, '-d', 'postgres', '-qc', command], { stdio: 'ignore' })

export function initialisePgbench(adminUrl: string, scale = 10): void {
  const args = connectionArgs(adminUrl)
  psql(args, 'drop database if exists sika_bench_pgbench')
  psql(args, 'create database sika_bench_pgbench')
  execFileSync('pgbench', [...args, '-i', '-q', '-s', String(scale), 'sika_bench_pgbench'], {
    stdio: 'ignore',
  })
}

export function dropPgbench(adminUrl: string): void {
  const args = connectionArgs(adminUrl)
  psql(args, 'drop database if exists sika_bench_pgbench')
}
