// The time to answer the dashboard's home and an operation's page, a signed-in member's request
// at a time, on SQLite and PostgreSQL: 300 requests each after 50 to warm up, median and p99.
//
//   node --import tsx scripts/measure-dashboard-pages.ts
import { performance } from 'node:perf_hooks'
import { startApp, type TestApp } from '../test/support/app.ts'
import { signedInMember } from '../test/support/dashboard.ts'
import { createPostgresTarget, createSqliteTarget } from '../test/support/stores.ts'

async function timed(what: string, read: () => Promise<{ status: number }>): Promise<void> {
  const durations: number[] = []
  for (let run = 0; run < 350; run++) {
    const started = performance.now()
    const answer = await read()
    if (answer.status !== 200) throw new Error(`${what} answered ${answer.status}`)
    if (run >= 50) durations.push(performance.now() - started)
  }
  durations.sort((a, b) => a - b)
  const at = (share: number) => (durations[Math.floor(durations.length * share)] ?? 0).toFixed(2)
  console.log(`  ${what.padEnd(40)} ${at(0.5).padStart(7)} ms median ${at(0.99).padStart(7)} ms p99`)
}

async function measure(app: TestApp, name: string): Promise<void> {
  const merchant = await app.createMerchant('Pages')
  const client = app.client(merchant.sandbox)
  let token = ''
  for (let index = 0; index < 30; index++) {
    const answer = await client.post('/api/v1/collect', {
      amount: 5000,
      channel: 'orange-money',
      country: 'CI',
      customer: { phoneNumber: `+22507001${String(index).padStart(2, '0')}001`, fullName: 'Awa Kone' },
      merchantReference: `order-${index}`,
      callbackUrl: 'https://merchant.example/callbacks',
      metadata: { cart: String(index) },
    })
    token = answer.body.data.collect.token
  }
  await client.post(`/api/v1/collect/${token}/refund`, { merchantReference: 'refund-1', amount: 1000 })
  const member = await signedInMember(app, { role: 'owner', merchantId: merchant.id })
  console.log(`${name}:`)
  await timed('home (/dashboard/sandbox)', () => member.browser.get('/dashboard/sandbox'))
  await timed('an operation with a refund', () =>
    member.browser.get(`/dashboard/sandbox/operations/${token}`),
  )
  await timed('search by phone', () => member.browser.get('/dashboard/sandbox/operations?q=0700100001'))
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
