// What a dashboard search costs at 1,000,000 operations, on SQLite and PostgreSQL: a merchant's
// sandbox holds a million failed collects of one customer (seeded, as the bench seeds lists), then
// a few more of other customers; each read is timed over 50 runs (median and p99).
//
//   node --import tsx scripts/measure-dashboard-search.ts [count]
import { performance } from 'node:perf_hooks'
import { seedCopiesOfOperation } from '../src/store/bulk-seed.ts'
import { startApp, type TestApp } from '../test/support/app.ts'
import { createPostgresTarget, createSqliteTarget } from '../test/support/stores.ts'

const count = Number(process.argv[2] ?? 1_000_000)
const runs = 50

async function timed(what: string, read: () => Promise<unknown>): Promise<void> {
  const durations: number[] = []
  let rows = 0
  for (let run = 0; run < runs; run++) {
    const started = performance.now()
    const result = await read()
    durations.push(performance.now() - started)
    rows = Array.isArray(result) ? result.length : ((result as { items?: unknown[] }).items?.length ?? 0)
  }
  durations.sort((a, b) => a - b)
  const median = durations[Math.floor(runs / 2)] ?? 0
  const p99 = durations[Math.floor(runs * 0.99)] ?? 0
  console.log(
    `  ${what.padEnd(58)} ${median.toFixed(2).padStart(8)} ms median ${p99.toFixed(2).padStart(8)} ms p99  (${rows} rows)`,
  )
}

async function measure(app: TestApp, name: string): Promise<void> {
  const merchant = await app.createMerchant('Search at scale')
  const client = app.client(merchant.sandbox)
  const collect = async (reference: string, phone: string) => {
    const answer = await client.post('/api/v1/collect', {
      amount: 1000,
      channel: 'orange-money',
      country: 'CI',
      customer: { phoneNumber: phone },
      merchantReference: reference,
      callbackUrl: 'https://merchant.example/callbacks',
    })
    if (answer.status !== 200) throw new Error(answer.text)
    return answer.body.data.collect as { token: string }
  }
  const template = await collect('template', '+2250700000901')
  const seedingStarted = performance.now()
  await seedCopiesOfOperation(app.context.store, template.token, count, 0)
  const seededS = (performance.now() - seedingStarted) / 1000
  const rare = await collect('rare-customer', '+2250700123001')
  for (let index = 0; index < 20; index++)
    await collect(`late-${index}`, `+22507001${String(index).padStart(2, '0')}001`)
  console.log(`${name}: ${count.toLocaleString('en')} operations seeded in ${seededS.toFixed(1)} s`)
  const search = app.context.store.operationSearch
  const id = merchant.id
  await timed('phone of one customer with 1 operation', () =>
    search.findByPhone(id, 'sandbox', '+2250700123001', 50),
  )
  await timed('phone of one customer with all the seeded ones (page of 50)', () =>
    search.findByPhone(id, 'sandbox', '+2250700000901', 50),
  )
  await timed('token', () => search.findByReference(id, 'sandbox', rare.token, 50))
  await timed('merchantReference of a seeded one', () =>
    search.findByReference(id, 'sandbox', 'seed-500000', 50),
  )
  await timed('a text nothing has', () => search.findByReference(id, 'sandbox', 'no-such-thing', 50))
  await timed('list, first page of 50', () => search.list(id, 'sandbox', { limit: 50 }))
  const deep = await search.list(id, 'sandbox', { limit: 50, fromUs: 0 })
  let cursor = deep.next
  for (let page = 0; page < 10 && cursor; page++)
    cursor = (await search.list(id, 'sandbox', { limit: 50, after: cursor })).next
  await timed('list, the page after 10 pages', () => search.list(id, 'sandbox', { limit: 50, after: cursor }))
  await timed('list, status succeeded (21 of them)', () =>
    search.list(id, 'sandbox', { limit: 50, statuses: ['succeeded'] }),
  )
}

for (const [name, create] of [
  ['SQLite', async () => createSqliteTarget()],
  ['PostgreSQL', createPostgresTarget],
] as const) {
  const { target, cleanup } = await create()
  const app = await startApp(target)
  try {
    await measure(app, name)
  } finally {
    await app.close()
    await cleanup()
  }
}
