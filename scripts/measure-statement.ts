/**
 * Measures what a CSV statement of many rows costs the server: seeds ROWS ledger entries (default
 * 1,000,000) into a fresh SQLite store in bulk, starts `sika serve` on it, downloads
 * GET /api/v1/transaction?format=csv, and reports the server's peak RSS before and after, with the
 * time taken. Constant memory means the peak barely moves however many rows stream.
 *
 *   node --import tsx scripts/measure-statement.ts [ROWS]
 */
import { execFileSync, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'

const rows = Number(process.argv[2] ?? 1_000_000)
const directory = mkdtempSync(join(tmpdir(), 'sika-statement-'))
const databaseUrl = join(directory, 'sika.db')
const environment = {
  ...process.env,
  DATABASE_URL: databaseUrl,
  RATE_LIMIT_PER_SECOND: '0',
  LOG_LEVEL: 'warn',
}
const sika = join(import.meta.dirname, '..', 'bin', 'sika.mjs')

const merchant = JSON.parse(
  execFileSync(process.execPath, [sika, 'merchant', 'create', '--name', 'Statement', '--json'], {
    env: environment,
  }).toString(),
) as { id: string; sandbox: { apiKey: string; secretKey: string } }

seed(merchant.id)
const port = 3900 + Math.floor(Math.random() * 90)
const server = spawn(process.execPath, [sika, 'serve'], {
  env: { ...environment, PORT: String(port) },
  stdio: 'ignore',
})
try {
  await waitForReady(port)
  const before = peakRssMb(server.pid!)
  const started = performance.now()
  const response = await fetch(`http://127.0.0.1:${port}/api/v1/transaction?format=csv`, {
    headers: { 'api-key': merchant.sandbox.apiKey, 'secret-key': merchant.sandbox.secretKey },
  })
  let bytes = 0
  let lines = 0
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.length
    for (const byte of chunk) if (byte === 10) lines++
  }
  const seconds = (performance.now() - started) / 1000
  const after = peakRssMb(server.pid!)
  console.log(
    `statement of ${lines - 1} rows (${(bytes / 1e6).toFixed(1)} MB) in ${seconds.toFixed(1)} s; ` +
      `server peak RSS ${before.toFixed(0)} MB before, ${after.toFixed(0)} MB after`,
  )
} finally {
  server.kill('SIGTERM')
  rmSync(directory, { recursive: true, force: true })
}

/** ROWS succeeded cash-in entries on the merchant's opening operation, numbered after its own. */
function seed(merchantId: string): void {
  const db = new Database(databaseUrl)
  const operation = db
    .prepare("select id, token from operations where merchant_id = ? and mode = 'sandbox' limit 1")
    .get(merchantId) as { id: number; token: string }
  const counter = db
    .prepare("select value from counters where merchant_id = ? and mode = 'sandbox' and name = 'ledger'")
    .get(merchantId) as { value: number }
  db.transaction(() => {
    db.prepare(
      `with recursive n(i) as (select 1 union all select i + 1 from n where i < ?)
       insert into ledger_entries (merchant_id, mode, sequence, reference, operation_id, operation_kind, type,
         currency, amount_minor, status, created_at_us, updated_at_us, balance_after_minor)
       select ?, 'sandbox', ? + i, 'TXSEED.' || (? + i), ?, 'collect', 'cash-in', 'XOF', 100, 'succeeded',
         1700000000000000 + i, 1700000000000000 + i, 100 * i
       from n`,
    ).run(rows, merchantId, counter.value, counter.value, operation.id)
    db.prepare(
      "update counters set value = value + ? where merchant_id = ? and mode = 'sandbox' and name = 'ledger'",
    ).run(rows, merchantId)
  })()
  db.close()
}

async function waitForReady(port: number): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const ready = await fetch(`http://127.0.0.1:${port}/ready`).catch(() => undefined)
    if (ready?.ok) return
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error('sika serve did not become ready')
}

/** The process's peak resident set (VmHWM), in MB. */
function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kilobytes = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0)
  return kilobytes / 1024
}
