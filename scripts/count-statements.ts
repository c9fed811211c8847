// Counts the statements (and transactions) one initiation and one details read cost, on PostgreSQL:
// the figures of the architecture issue's closing note. Run: node --import tsx scripts/count-statements.ts
import pg from 'pg'
import { startApp } from '../test/support/app.ts'

const admin = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' })
await admin.connect()
await admin.query('drop database if exists sika_count_statements')
await admin.query('create database sika_count_statements')
await admin.end()

const seen: string[] = []
const original = pg.Client.prototype.query
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string })?.text
  if (text) seen.push(text.replace(/\s+/g, ' ').slice(0, 140))
  return (original as (...a: unknown[]) => unknown).apply(this, args)
} as typeof original

const app = await startApp(
  { name: 'postgres', databaseUrl: 'postgres://postgres@127.0.0.1:5432/sika_count_statements' },
  { environment: { RATE_LIMIT_PER_SECOND: '0' } },
)
const merchant = await app.createMerchant()
const client = app.client(merchant.sandbox)
const body = (reference: string) => ({
  amount: 5000,
  channel: 'orange-money',
  country: 'CI',
  customer: { phoneNumber: '+2250700000002' },
  merchantReference: reference,
  callbackUrl: 'http://127.0.0.1:9/callback',
})
await client.post('/api/v1/collect', body('warm-up'))
const report = (what: string, statements: string[]) => {
  const transactions = statements.filter((s) => /^(begin|start transaction)/i.test(s)).length
  const operationReads = statements.filter((s) => /^select .* from "operations"/i.test(s)).length
  console.log(
    `\n${what}: ${statements.length} statements, ${transactions} transactions, ${operationReads} reads of the operation row`,
  )
  for (const statement of statements) console.log(`  ${statement}`)
}
seen.length = 0
const created = await client.post('/api/v1/collect', body('measured'))
report('POST /api/v1/collect (sandbox, succeeds at once)', [...seen])
seen.length = 0
await client.get(`/api/v1/collect/${created.body.data.collect.token}`)
report('GET /api/v1/collect/{token}', [...seen])
await app.close()
