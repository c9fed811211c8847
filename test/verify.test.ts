import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { startApp, type TestApp } from './support/app.ts'
import { runSika } from './support/cli.ts'
import { sandboxPhone, transferBody } from './support/sandbox-requests.ts'
import { describeEachStore } from './support/stores.ts'

/**
 * `sika verify` (issue 8): the invariant checker every fault test ends with. It must pass on a
 * store written only by the service, and name each kind of damage a half-committed write leaves.
 */
/** Workers run only by hand here, so nothing is ever sent to it. */
const callbackUrl = 'http://127.0.0.1:9/callbacks'
const environment = { RATE_LIMIT_PER_SECOND: '0', SANDBOX_DELAY_MS: '3600000', OPERATION_TTL: '2h' }

function singleBody(kind: string, ending: string, merchantReference: string) {
  return {
    amount: kind === 'collect' ? 1000 : 2000,
    channel: 'orange-money',
    country: 'CI',
    customer: { phoneNumber: sandboxPhone(ending) },
    merchantReference,
    callbackUrl,
  }
}

describeEachStore('sika verify', (store) => {
  let app: TestApp
  const tokens: Record<string, string> = {}

  before(async () => {
    app = await startApp(store(), { environment })
    const merchant = await app.createMerchant()
    const client = app.client(merchant.sandbox)
    const create = async (name: string, path: string, body: object) => {
      const response = await client.post(path, body)
      assert.equal(response.status, 200, response.text)
      tokens[name] = (Object.values(response.body.data)[0] as { token: string }).token
    }
    // Every shape of money movement: credits, holds posted and released, a refund reserve, pending work.
    await create('collected', '/api/v1/collect', singleBody('collect', '123', 'c-ok'))
    await create('declined', '/api/v1/collect', singleBody('collect', '901', 'c-declined'))
    await create('pending collect', '/api/v1/collect', singleBody('collect', '905', 'c-pending'))
    await create('paid out', '/api/v1/disbursement', singleBody('disbursement', '123', 'd-ok'))
    await create('payout held', '/api/v1/disbursement', singleBody('disbursement', '905', 'd-pending'))
    await create('payout failed', '/api/v1/disbursement', singleBody('disbursement', '901', 'd-failed'))
    await create('transfer', '/api/v1/transfer', transferBody('123', '123', callbackUrl))
    await create('transfer refunded', '/api/v1/transfer', transferBody('123', '901', callbackUrl))
  })

  after(() => app?.close())

  test('a store written only by the service is consistent: exit 0', async () => {
    const result = await runSika(store().databaseUrl, ['verify'])
    assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`)
    assert.match(result.stdout, /checked \d+ balances, \d+ counters and \d+ operations: consistent/)
  })

  test('each kind of damage is named, and the exit code is 1', async () => {
    const db = app.db
    const operationId = async (name: string) =>
      (
        await db
          .selectFrom('operations')
          .select('id')
          .where('token', '=', tokens[name]!)
          .executeTakeFirstOrThrow()
      ).id
    const collected = await operationId('collected')
    const pendingCollect = await operationId('pending collect')
    const payoutHeld = await operationId('payout held')
    // Money invented: a credit with no posting behind it.
    await db
      .updateTable('balances')
      .set((eb) => ({ posted_minor: eb('posted_minor', '+', 985) }))
      .where('currency', '=', 'XOF')
      .where('mode', '=', 'sandbox')
      .execute()
    // A half-built operation: its status event lost, its expiry gone.
    await db
      .deleteFrom('events')
      .where('operation_id', '=', collected)
      .where('type', '=', 'collect.succeeded')
      .execute()
    await db
      .updateTable('scheduled_work')
      .set({ done_at_us: 1 })
      .where('operation_id', '=', pendingCollect)
      .execute()
    // A hold released on the balance but not in the ledger.
    await db
      .updateTable('ledger_entries')
      .set({ status: 'canceled' })
      .where('operation_id', '=', payoutHeld)
      .execute()

    // A status count off by one: the failed collects' list would show a wrong total.
    await db
      .updateTable('status_buckets')
      .set((eb) => ({ count: eb('count', '+', 1) }))
      .where('kind', '=', 'collect')
      .where('status', '=', 'failed')
      .where('level', '=', 0)
      .execute()

    const result = await runSika(store().databaseUrl, ['verify'])
    assert.equal(result.code, 1, result.stdout)
    const expectations: [string, RegExp][] = [
      [
        'the invented credit',
        /balance mer_\w+ sandbox XOF: posted \d+ but its postings sum to \d+ \(off by 985\)/,
      ],
      [
        'the lost event',
        new RegExp(
          `operation ${tokens.collected} \\(collect, succeeded\\): events \\[collect.pending\\] but expected \\[collect.pending, collect.succeeded\\]`,
        ),
      ],
      [
        'the lost expiry',
        new RegExp(
          `operation ${tokens['pending collect']} \\(collect, pending\\): pending with no expiry scheduled`,
        ),
      ],
      [
        'the released hold',
        new RegExp(
          `operation ${tokens['payout held']} \\(disbursement, pending\\): ledger entries \\[cash-out canceled \\d+\\] but its sides call for \\[cash-out pending \\d+\\]`,
        ),
      ],
      [
        'the hold the balance still counts',
        /balance mer_\w+ sandbox XOF: held \d+ but its open holds sum to \d+/,
      ],
      ['the lost event, in its counter', /counter mer_\w+ sandbox event: is \d+ but numbers \d+ rows/],
      [
        'the status count off by one',
        /status count mer_\w+ sandbox collect failed level 0 block 0: records 2 operations, but 1 rows are in it/,
      ],
    ]
    for (const [what, pattern] of expectations) assert.match(result.stdout, pattern, `${what} is named`)
    assert.match(result.stdout, /: 7 inconsistencies$/m)
  })
})
