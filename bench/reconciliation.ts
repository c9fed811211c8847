/**
 * The reconciliation of one day of N operator lines (CONTRACT.md: 100,000 lines in under 60 s on
 * either store), through the pawaPay simulator as a real server:
 *
 *   npx tsx bench/reconciliation.ts --lines 10000,100000 --stores sqlite,postgres
 *
 * For each store and size: the simulator's books are seeded with N lines of yesterday, and Sika
 * with N succeeded live sides that those lines name (a clean day: no break expected); then the
 * same N lines with no Sika side (N `missing_in_sika` breaks, the most a run writes). Each run is
 * timed from the call to its report: the statement's request and wait, its download and parse,
 * the read of Sika's sides, the match, the breaks' writes and the report.
 */
import { parseArgs } from 'node:util'
import { reconcileDay } from '../src/app/reconciliation/run.ts'
import { startPawapaySimulator } from '../src/simulators/pawapay/pawapay-simulator.ts'
import type { RunningSimulator } from '../src/simulators/simulator.ts'
import { type LiveApp, operatorReferenceOf, settledRecord, startLiveApp } from '../test/support/live.ts'
import { createPostgresTarget, createSqliteTarget } from '../test/support/stores.ts'

const { values } = parseArgs({
  options: {
    lines: { type: 'string', default: '10000,100000' },
    stores: { type: 'string', default: 'sqlite,postgres' },
  },
})

const yesterday = () => new Date(Date.now() - 86_400_000).toISOString().slice(0, 10)

async function control(simulator: RunningSimulator, path: string, body: unknown) {
  const answer = await fetch(`${simulator.url}/_simulator/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  if (!answer.ok) throw new Error(`${path}: ${answer.status} ${await answer.text()}`)
  return answer.json()
}

/** N live operations named `seed<i>` as the seeded lines name them, succeeded at noon yesterday. */
async function seedSikaSides(running: LiveApp, templateToken: string, count: number) {
  const { db } = running.app
  const template = await db
    .selectFrom('operations')
    .selectAll()
    .where('token', '=', templateToken)
    .executeTakeFirstOrThrow()
  const [side] = JSON.parse(template.sides)
  const atUs = Date.parse(`${yesterday()}T12:00:00Z`) * 1000
  const { id: _id, ...base } = template
  for (let from = 0; from < count; from += 500) {
    const rows = []
    for (let index = from; index < Math.min(count, from + 500); index++) {
      const amountMinor = 100 + (index % 900)
      const sides = [
        {
          ...side,
          kind: index % 2 === 0 ? 'collect' : 'disbursement',
          amountMinor,
          transactionAmountMinor: amountMinor,
          operatorReference: `seed-reference-${index}`,
          submittedAtUs: atUs,
        },
      ]
      rows.push({
        ...base,
        token: `seed${index}`,
        merchant_reference: `seed-${index}`,
        position: 1_000_000 + index,
        sides: JSON.stringify(sides),
        initiated_at_us: atUs,
        completed_at_us: atUs,
        updated_at_us: atUs,
      })
    }
    await db.insertInto('operations').values(rows).execute()
  }
}

async function measure(storeName: 'sqlite' | 'postgres', count: number, clean: boolean) {
  const created = storeName === 'sqlite' ? createSqliteTarget() : await createPostgresTarget()
  let simulator!: RunningSimulator
  const running = await startLiveApp(created.target, async (publicBaseUrl) => {
    const notifications = `${publicBaseUrl}/providers/pawapay/notifications`
    simulator = await startPawapaySimulator({
      settleDelayMs: 50,
      statementDelayMs: 200,
      depositCallbackUrl: notifications,
    })
    return [{ simulator, channel: 'moov-money', countries: ['BJ'] }]
  })
  try {
    const template = await running.live.post('/api/v1/collect', {
      amount: 1000,
      channel: 'moov-money',
      country: 'BJ',
      customer: { phoneNumber: '+2290197000120' },
      merchantReference: 'template',
      callbackUrl: 'https://merchant.example/callback',
    })
    const token = template.body.data.collect.token
    await settledRecord(running, 'collect', token, 10_000)
    await operatorReferenceOf(running.app, token)
    await control(simulator, 'books/seed', { count, date: yesterday(), provider: 'MOOV_BEN' })
    if (clean) await seedSikaSides(running, token, count)
    const startedAt = performance.now()
    const report = await reconcileDay(running.app.context, 'moov-money-bj', yesterday(), 'bench')
    const seconds = ((performance.now() - startedAt) / 1000).toFixed(1)
    const phases = running.app.logs.filter((line) => line.includes('reconciliation run phases')).at(-1)
    console.log(
      `${phases === undefined ? '' : `${JSON.stringify(JSON.parse(phases).phasesMs)} `}${storeName} ${count} lines, ${clean ? 'a clean day' : 'every line missing in Sika'}: ${seconds} s (${report.status}${report.reason ? `: ${report.reason}` : ''}, matched ${report.matched}/${report.lines}, ${report.breaks.length} breaks)`,
    )
  } finally {
    await running.close()
    await created.cleanup()
  }
}

for (const storeName of values.stores.split(',') as ('sqlite' | 'postgres')[])
  for (const count of values.lines.split(',').map(Number))
    for (const clean of [true, false]) await measure(storeName, count, clean)
