/**
 * The platform console's search across merchants at a million operations across a thousand
 * merchants (issue 52, part 6): seeds a fresh store of each kind with raw rows (no API, no ledger:
 * the store is thrown away after), then times each kind of search through the use case and prints
 * each query's plan. Run: `npx tsx bench/console-search.ts [sqlite|postgres]...`. About a minute
 * per store, most of it seeding.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { sql } from 'kysely'
import pg from 'pg'
import { closeContext, createContext } from '../src/app/bootstrap.ts'
import { type PlatformOperationQuery, searchAllOperations } from '../src/app/console/operation-search.ts'
import { rollUpOperatorHours } from '../src/app/console/operator-hours-roll-up.ts'
import { readOperatorOverview } from '../src/app/console/operator-overview.ts'
import type { AppContext } from '../src/app/context.ts'
import { loadConfig } from '../src/config.ts'
import { createLogger } from '../src/logger.ts'
import { rawDatabase, withMaintenanceDatabase } from '../src/store/store.ts'

const operations = Number(process.env.CONSOLE_SEARCH_OPERATIONS ?? 1_000_000)
const merchants = 1_000
const postgresAdminUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
/** The seeded operations span the 30 days before this. */
const endUs = Date.UTC(2026, 11, 1) * 1000
const spacingUs = Math.floor((30 * 86_400_000_000) / operations)

async function seed(context: AppContext): Promise<void> {
  await withMaintenanceDatabase(context.store, async (db) => {
    await sql`
      with recursive n(i) as (select 0 union all select i + 1 from n where i < ${sql.lit(merchants - 1)})
      insert into merchants (id, name, status, created_at_us)
      select 'merchant-' || cast(n.i as text), 'Merchant ' || cast(n.i as text), 'active', 0 from n
    `.execute(db)
    const sides = JSON.stringify([
      {
        role: 'main',
        kind: 'collect',
        channel: 'mtn-momo',
        country: 'CI',
        currency: 'XOF',
        amountMinor: 5000,
        feesMinor: 0,
        transactionAmountMinor: 5000,
        cashAmountMinor: 5000,
        percentageMilli: 0,
        additionalFeeMinor: 0,
        supportedByAccount: false,
        customer: { fullName: '', phoneNumber: '', email: '' },
        status: 'failed',
      },
    ])
    // One operation in a thousand is on orange-money, one in ten thousand pending: rare filters.
    await sql`
      with recursive n(i) as (select 1 union all select i + 1 from n where i < ${sql.lit(operations)})
      insert into operations (
        token, merchant_id, mode, kind, position, status, merchant_reference, request_hash,
        currency, channel, country, phone_number, sides, urls, failure_code, failure_message,
        initiated_at_us, completed_at_us, updated_at_us)
      select
        'scale-' || cast(n.i as text), 'merchant-' || cast(n.i % ${sql.lit(merchants)} as text), 'live', 'collect',
        n.i / ${sql.lit(merchants)} + 1,
        case when n.i % 10000 = 7 then 'pending' else 'failed' end,
        'ref-' || cast(n.i as text), 'seed', 'XOF',
        case when n.i % 1000 = 3 then 'orange-money' else 'mtn-momo' end, 'CI',
        '+22507' || substr(cast(100000000 + n.i % 200000 as text), 2, 8),
        ${sides}, '{}', 'declined', 'seeded',
        ${sql.lit(endUs)} - cast(${sql.lit(operations)} - n.i as bigint) * ${sql.lit(spacingUs)},
        ${sql.lit(endUs)} - cast(${sql.lit(operations)} - n.i as bigint) * ${sql.lit(spacingUs)},
        ${sql.lit(endUs)} - cast(${sql.lit(operations)} - n.i as bigint) * ${sql.lit(spacingUs)}
      from n
    `.execute(db)
    await sql`analyze`.execute(db)
  })
}

const searches: Record<string, PlatformOperationQuery> = {
  'phone, national form (CI, KE, UG candidates)': { q: '07 00 01 23 45' },
  'phone, international form': { q: '+2250700012345' },
  merchantReference: { q: 'ref-500000' },
  token: { q: 'scale-777777' },
  'list, first page': {},
  'list, channel orange-money (1 in 1,000)': { channel: 'orange-money' },
  'list, status pending (1 in 10,000)': { status: 'pending' },
  'list, to 15 days ago': { toUs: endUs - 15 * 86_400_000_000 },
  'list, one merchant (the dashboard list)': { merchantId: 'merchant-42' },
  'phone within one merchant': { q: '+2250700012345', merchantId: 'merchant-345' },
}

async function time(context: AppContext, query: PlatformOperationQuery) {
  const runs: number[] = []
  let found = 0
  for (let run = 0; run < 15; run++) {
    const started = performance.now()
    const page = await searchAllOperations(context, query)
    runs.push(performance.now() - started)
    found = page.items.length
  }
  runs.sort((a, b) => a - b)
  return { medianMs: runs[7]!, maxMs: runs.at(-1)!, found }
}

/** The plans of the statements behind each kind of search, as each store reads them. */
const plans = (store: 'sqlite' | 'postgres') => {
  const prefix =
    store === 'sqlite' ? 'explain query plan' : 'explain (analyze, costs off, timing off, summary off)'
  return {
    'phone probe': `${prefix} select * from operations where merchant_id in (select id from merchants) and mode = 'live' and phone_number = '+2250700012345' order by initiated_at_us desc, id desc limit 100`,
    'merchantReference probe': `${prefix} select * from operations where merchant_id in (select id from merchants) and mode = 'live' and kind in ('collect','recharge','disbursement','withdraw','transfer','refund') and merchant_reference = 'ref-500000' limit 100`,
    'token probe': `${prefix} select * from operations where token = 'scale-777777' and mode = 'live'`,
    'list page, channel filter': `${prefix} select * from operations where id < 1000001 and id >= 980001 and mode = 'live' and (channel = 'orange-money' or to_channel = 'orange-money') order by id desc limit 50`,
    'list page, to date': `${prefix} select * from operations where id < 500001 and id >= 480001 and mode = 'live' and initiated_at_us + 0 < ${endUs - 15 * 86_400_000_000} order by id desc limit 50`,
    'binary search step': `${prefix} select id, initiated_at_us from operations where id >= 500000 order by id limit 1`,
  }
}

/** The overview's roll-up at its first run (30 days counted), again (only the hours that can still change), and a read. */
async function measureOverview(context: AppContext, store: string) {
  const timed = async (name: string, work: () => Promise<unknown>) => {
    const started = performance.now()
    await work()
    console.log(`[${store}] ${name.padEnd(48)} ${(performance.now() - started).toFixed(1).padStart(8)} ms`)
  }
  await timed('overview roll-up, first run (30 days)', () => rollUpOperatorHours(context))
  await timed('overview roll-up, next run', () => rollUpOperatorHours(context))
  for (let run = 0; run < 3; run++) await timed('overview read', () => readOperatorOverview(context))
}

async function measure(store: 'sqlite' | 'postgres') {
  const { databaseUrl, cleanup } = await createTarget(store)
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    PUBLIC_BASE_URL: 'http://sika.test',
    SECRETS_KEY: '0f'.repeat(32),
  })
  const silent = new Writable({ write: (_chunk, _encoding, done) => done() })
  const context = await createContext(config, createLogger('error', silent))
  try {
    const seedStarted = performance.now()
    await seed(context)
    console.log(
      `\n[${store}] ${operations} operations across ${merchants} merchants seeded in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`,
    )
    for (const [name, query] of Object.entries(searches)) {
      const { medianMs, maxMs, found } = await time(context, query)
      console.log(
        `[${store}] ${name.padEnd(48)} median ${medianMs.toFixed(2).padStart(8)} ms  max ${maxMs.toFixed(2).padStart(8)} ms  found ${found}`,
      )
    }
    await measureOverview(context, store)
    const db = rawDatabase(context.store)
    for (const [name, text] of Object.entries(plans(store))) {
      const rows = (await sql.raw(text).execute(db)).rows as Record<string, unknown>[]
      const lines = rows.map((row) => String(row.detail ?? row['QUERY PLAN']))
      console.log(`[${store}] plan, ${name}:\n    ${lines.join('\n    ')}`)
    }
  } finally {
    await closeContext(context)
    await cleanup()
  }
}

async function createTarget(store: 'sqlite' | 'postgres') {
  if (store === 'sqlite') {
    const folder = mkdtempSync(join(tmpdir(), 'sika-console-search-'))
    return {
      databaseUrl: join(folder, 'sika.db'),
      cleanup: async () => rmSync(folder, { recursive: true, force: true }),
    }
  }
  const database = `sika_console_search_${randomBytes(4).toString('hex')}`
  const admin = new pg.Client({ connectionString: postgresAdminUrl })
  await admin.connect()
  await admin.query(`create database ${database}`)
  await admin.end()
  const url = new URL(postgresAdminUrl)
  url.pathname = `/${database}`
  return {
    databaseUrl: url.toString(),
    cleanup: async () => {
      const client = new pg.Client({ connectionString: postgresAdminUrl })
      await client.connect()
      await client.query(`drop database if exists ${database} with (force)`)
      await client.end()
    },
  }
}

const stores = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['sqlite', 'postgres']
for (const store of stores) await measure(store as 'sqlite' | 'postgres')
