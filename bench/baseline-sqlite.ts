/**
 * Baseline: raw better-sqlite3 doing the writes of one sandbox collect (a list position, the
 * operation row, a ledger entry, the balance, two events) on Sika's own schema, with Sika's
 * pragmas (WAL, synchronous FULL), as fast as one process can: one durable transaction per
 * operation, or `perCommit` operations per transaction. No HTTP, no validation, no JSON parsing.
 *
 *   node --import tsx bench/baseline-sqlite.ts <file> <seconds> <perCommit>
 */
import BetterSqlite3 from 'better-sqlite3'
import { migrate, openStore } from '../src/store/store.ts'

const [file, secondsArg, perCommitArg] = process.argv.slice(2)
if (!file) throw new Error('usage: baseline-sqlite.ts <file> <seconds> <perCommit>')
const seconds = Number(secondsArg ?? 5)
const perCommit = Number(perCommitArg ?? 1)

const store = openStore({ kind: 'sqlite', path: file })
await migrate(store)
await store.close()

const db = new BetterSqlite3(file)
db.pragma('journal_mode = WAL')
db.pragma('synchronous = FULL')
db.pragma('foreign_keys = ON')
const merchant = `mer_baseline_${process.pid}`
db.prepare('insert into merchants (id, name, status, created_at_us) values (?, ?, ?, ?)').run(
  merchant,
  'Baseline',
  'active',
  Date.now() * 1000,
)
db.prepare(
  'insert into balances (merchant_id, mode, currency, posted_minor, held_minor) values (?, ?, ?, 0, 0)',
).run(merchant, 'sandbox', 'XOF')

const nextCounter = db.prepare(
  `insert into counters (merchant_id, mode, name, value) values (?, 'sandbox', ?, ?)
   on conflict (merchant_id, mode, name) do update set value = counters.value + excluded.value
   returning value`,
)
const insertOperation = db.prepare(
  `insert into operations (token, merchant_id, mode, kind, position, status, merchant_reference,
     request_hash, currency, channel, country, phone_number, sides, urls, initiated_at_us,
     completed_at_us, updated_at_us, refundable_minor, refunded_minor)
   values (?, ?, 'sandbox', 'collect', ?, 'succeeded', ?, ?, 'XOF', 'orange-money', 'CI', ?, ?, ?, ?, ?, ?, ?, 0)`,
)
const insertEntry = db.prepare(
  `insert into ledger_entries (merchant_id, mode, sequence, reference, operation_id, operation_kind,
     type, currency, amount_minor, status, created_at_us, updated_at_us, balance_after_minor)
   values (?, 'sandbox', ?, ?, ?, 'collect', 'cash-in', 'XOF', ?, 'succeeded', ?, ?, ?)`,
)
const credit = db.prepare(
  `update balances set posted_minor = posted_minor + ? where merchant_id = ? and mode = 'sandbox'
   and currency = 'XOF' returning posted_minor`,
)
const insertEvent = db.prepare(
  `insert into events (id, merchant_id, mode, position, operation_id, type, payload, callback_url,
     created_at_us, delivery_status, attempts)
   values (?, ?, 'sandbox', ?, ?, ?, ?, null, ?, 'no_callback', 0)`,
)

const sides = JSON.stringify([
  {
    role: 'single',
    channel: 'orange-money',
    country: 'CI',
    amount: 5000,
    pricing: { percentageFee: 1.5, additionalFee: 0, supportedByAccount: true, feesAmount: 75 },
    cashAmount: 5000,
    transactionAmount: 4925,
    customer: { phoneNumber: '+2250700000123', fullName: 'Awa Kone', email: 'awa@example.com' },
    status: 'succeeded',
  },
])
const payload = JSON.stringify({
  type: 'collect.succeeded',
  data: JSON.parse(sides)[0],
  padding: 'x'.repeat(300),
})

let made = 0
function oneOperation(): void {
  made += 1
  const now = Date.now() * 1000
  const position = (nextCounter.get(merchant, 'collect', 1) as { value: number }).value
  const id = insertOperation.run(
    `base-${process.pid}-${made}`,
    merchant,
    position,
    `ref-${made}`,
    'f'.repeat(64),
    '+2250700000123',
    sides,
    '{"callbackUrl":null}',
    now,
    now,
    now,
    5000,
  ).lastInsertRowid as number
  const sequence = (nextCounter.get(merchant, 'ledger', 1) as { value: number }).value
  const posted = (credit.get(4925, merchant) as { posted_minor: number }).posted_minor
  insertEntry.run(merchant, sequence, `TX-${sequence}`, id, 4925, now, now, posted)
  const eventPosition = (nextCounter.get(merchant, 'events', 2) as { value: number }).value
  insertEvent.run(`evt_${process.pid}_${made}_a`, merchant, eventPosition - 1, id, 'pending', payload, now)
  insertEvent.run(`evt_${process.pid}_${made}_b`, merchant, eventPosition, id, 'succeeded', payload, now)
}

const group = db.transaction(() => {
  for (let i = 0; i < perCommit; i++) oneOperation()
})

const latenciesUs: number[] = []
const start = performance.now()
const end = start + seconds * 1000
while (performance.now() < end) {
  const before = performance.now()
  group()
  latenciesUs.push((performance.now() - before) * 1000)
}
const elapsedS = (performance.now() - start) / 1000
latenciesUs.sort((a, b) => a - b)
const at = (q: number) =>
  Math.round(latenciesUs[Math.min(latenciesUs.length - 1, Math.floor(q * latenciesUs.length))] ?? 0)
db.close()
process.stdout.write(
  `BENCH_JSON ${JSON.stringify({ operationsPerSecond: made / elapsedS, commitP50Us: at(0.5), commitP99Us: at(0.99), operations: made })}\n`,
)
