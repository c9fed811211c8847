import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { setFeeRow } from '../src/app/catalogue.ts'
import { pausePayouts, resumePayouts, setLimits } from '../src/app/merchant-controls.ts'
import type { IssuedMerchant } from '../src/app/merchants.ts'
import { type ApiResponse, startApp, type TestApp } from './support/app.ts'
import { csrfIn, signedInMember } from './support/dashboard.ts'
import { describeEachStore } from './support/stores.ts'

/**
 * CONTRACT.md, Platform console: a merchant whose payouts the platform paused keeps collecting and
 * pays nothing out; its limits per mode and currency (maxAmount, dailyPayoutLimit) refuse what is
 * past them with nothing made; each change takes effect on every instance within 1 s. Two
 * instances share one store, as a deployment's do.
 */
describeEachStore('merchant controls: payouts paused, limits and fees, on two instances', (target) => {
  let first: TestApp
  let second: TestApp
  const cli = { kind: 'cli' } as const

  before(async () => {
    first = await startApp(target())
    second = await startApp(target())
  })
  after(async () => {
    await first.close()
    await second.close()
  })

  let references = 0
  const reference = (name: string) => `${name}-${++references}`
  const callbackUrl = 'http://127.0.0.1:9/callbacks'
  const payee = (ending = '123') => ({ phoneNumber: `+2250700000${ending}` })
  const side = { channel: 'orange-money', country: 'CI' }
  const collect = (amount = 1000) => ({
    amount,
    ...side,
    customer: payee(),
    merchantReference: reference('collect'),
    callbackUrl,
  })
  const disbursement = (amount = 1000, ending = '123') => ({
    amount,
    ...side,
    customer: payee(ending),
    merchantReference: reference('payout'),
    callbackUrl,
  })
  const transfer = () => ({
    from: { amount: 1000, ...side, customer: payee() },
    to: { amount: 900, channel: 'wave', country: 'CI', customer: payee() },
    merchantReference: reference('transfer'),
    callbackUrl,
  })
  const batch = () => ({
    merchantReference: reference('batch'),
    callbackUrl,
    items: [{ amount: 500, ...side, customer: payee(), merchantReference: reference('item') }],
  })

  async function operationsOf(app: TestApp, merchantId: string): Promise<number> {
    const row = await app.db
      .selectFrom('operations')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('merchant_id', '=', merchantId)
      .executeTakeFirstOrThrow()
    return Number(row.count)
  }

  /** Sends the request until its answer has the status, and says how long that took (at most 3 s). */
  async function untilStatus(send: () => Promise<ApiResponse>, status: number): Promise<number> {
    const started = performance.now()
    for (;;) {
      const response = await send()
      if (response.status === status) return performance.now() - started
      assert.ok(performance.now() - started < 3000, `still ${response.status} after 3 s: ${response.text}`)
      await new Promise((resolve) => setTimeout(resolve, 25))
    }
  }

  test('paused on one instance: the other refuses payouts within 1 s, collects go on, resumed they pass', async () => {
    const merchant: IssuedMerchant = await first.createMerchant('Paused')
    const onSecond = second.client(merchant.sandbox)
    assert.equal((await onSecond.post('/api/v1/disbursement', disbursement())).status, 200)

    assert.equal(await pausePayouts(first.context, merchant.id, 'checking a pattern', cli), true)
    const pausedMs = await untilStatus(() => onSecond.post('/api/v1/disbursement', disbursement()), 403)
    assert.ok(pausedMs < 1000, `the other instance paid out for ${Math.round(pausedMs)} ms after the pause`)

    const made = await operationsOf(first, merchant.id)
    const refused = await onSecond.post('/api/v1/disbursement', disbursement())
    assert.equal(refused.body.code, 'payouts_paused')
    assert.match(refused.body.message, /platform has paused/)
    assert.match(refused.body.message, /checking a pattern/)
    for (const [path, body] of [
      ['/api/v1/withdraw', disbursement()],
      ['/api/v1/transfer', transfer()],
      ['/api/v1/payout-batch', batch()],
    ] as const) {
      const answer = await first.client(merchant.sandbox).post(path, body)
      assert.equal(answer.status, 403, `${path}: ${answer.text}`)
      assert.equal(answer.body.code, 'payouts_paused')
    }
    assert.equal(await operationsOf(first, merchant.id), made, 'nothing was made')

    const collected = await onSecond.post('/api/v1/collect', collect())
    assert.equal(collected.status, 200, collected.text)
    assert.equal(collected.body.data.collect.status, 'succeeded')

    assert.equal(await resumePayouts(first.context, merchant.id, cli), true)
    const resumedMs = await untilStatus(() => onSecond.post('/api/v1/disbursement', disbursement()), 200)
    assert.ok(resumedMs < 1000, `the other instance refused for ${Math.round(resumedMs)} ms after resuming`)

    const audit = await first.db
      .selectFrom('audit_log')
      .select(['action', 'actor_kind', 'before_json', 'after_json'])
      .where('merchant_id', '=', merchant.id)
      .where('action', 'like', 'payouts.%')
      .orderBy('at_us')
      .execute()
    assert.deepEqual(
      audit.map((row) => [
        row.action,
        row.actor_kind,
        JSON.parse(row.before_json!),
        JSON.parse(row.after_json!),
      ]),
      [
        [
          'payouts.paused',
          'cli',
          { payoutsPaused: false, reason: null },
          { payoutsPaused: true, reason: 'checking a pattern' },
        ],
        [
          'payouts.resumed',
          'cli',
          { payoutsPaused: true, reason: 'checking a pattern' },
          { payoutsPaused: false, reason: null },
        ],
      ],
    )
  })

  test('paused, a batch uploaded in the dashboard is refused with the reason, and nothing is made', async () => {
    const finance = await signedInMember(second, { role: 'finance' })
    assert.equal(await pausePayouts(first.context, finance.merchantId, 'awaiting documents', cli), true)
    // Every instance sees a change within 1 s (CONTRACT.md); the dashboard's instance may have read
    // the merchant's controls just before the pause.
    await new Promise((resolve) => setTimeout(resolve, 1000))
    const made = await operationsOf(first, finance.merchantId)
    const page = await finance.browser.get('/dashboard/sandbox/payout-batches')
    const csv = [
      'amount,channel,country,phoneNumber,fullName,merchantReference',
      '1000,orange-money,CI,+2250700000123,Awa,paused-row-1',
    ].join('\n')
    const preview = await finance.browser.postMultipart(
      '/dashboard/sandbox/payout-batches/preview',
      { csrf: csrfIn(page.text, '/dashboard/sandbox/payout-batches/preview'), reference: 'paused-batch' },
      { file: { name: 'batch.csv', text: csv } },
    )
    assert.equal(preview.status, 200, preview.text)
    const submitted = await finance.browser.postMultipart('/dashboard/sandbox/payout-batches', {
      csrf: csrfIn(preview.text, '/dashboard/sandbox/payout-batches'),
      csv: /name="csv" value="([^"]*)"/.exec(preview.text)?.[1] ?? '',
      reference: 'paused-batch',
    })
    assert.notEqual(submitted.status, 303, 'no batch was made')
    assert.match(submitted.text, /paused/)
    assert.match(submitted.text, /awaiting documents/)
    assert.equal(await operationsOf(first, finance.merchantId), made, 'nothing was made')
  })

  test('past maxAmount, a collect, a payout or a batch item is a 422 limit_exceeded and nothing is made; removed, it no longer applies', async () => {
    const merchant = await first.createMerchant('Capped')
    const limits = { merchantId: merchant.id, mode: 'sandbox', currency: 'XOF' } as const
    await setLimits(first.context, { ...limits, maxAmountMinor: 5000, dailyPayoutLimitMinor: null }, cli)
    const client = first.client(merchant.sandbox)
    const made = await operationsOf(first, merchant.id)
    for (const [path, body] of [
      ['/api/v1/collect', collect(5001)],
      ['/api/v1/disbursement', disbursement(6000)],
    ] as const) {
      const answer = await client.post(path, body)
      assert.equal(answer.status, 422, answer.text)
      assert.equal(answer.body.code, 'limit_exceeded')
      assert.equal(answer.body.limit, 'maxAmount')
      assert.equal(answer.body.limitAmount, 5000)
      assert.equal(answer.body.left, 5000)
      assert.match(answer.body.message, /maxAmount of 5000 XOF/)
    }
    const batchAnswer = await client.post('/api/v1/payout-batch', {
      ...batch(),
      items: [{ amount: 9000, ...side, customer: payee(), merchantReference: reference('item') }],
    })
    assert.equal(batchAnswer.status, 422, batchAnswer.text)
    assert.equal(batchAnswer.body.code, 'limit_exceeded')
    assert.equal(await operationsOf(first, merchant.id), made, 'nothing was made')
    assert.equal((await client.post('/api/v1/collect', collect(5000))).status, 200)

    await setLimits(first.context, { ...limits, maxAmountMinor: null, dailyPayoutLimitMinor: null }, cli)
    assert.equal((await client.post('/api/v1/collect', collect(9000))).status, 200, 'a limit removed')
  })

  test('50 payouts racing on both instances never take the day past dailyPayoutLimit', async (t) => {
    const merchant = await first.createMerchant('Daily')
    const limitMinor = 20_000
    const set = { merchantId: merchant.id, mode: 'sandbox', currency: 'XOF' } as const
    await setLimits(first.context, { ...set, maxAmountMinor: null, dailyPayoutLimitMinor: limitMinor }, cli)
    // The limit reaches the other instance within 1 s: wait until it refuses what is past it.
    await untilStatus(
      () => second.client(merchant.sandbox).post('/api/v1/disbursement', disbursement(30_000)),
      422,
    )

    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, index) => {
        // Disbursements on one instance, withdraws on the other: they share no list counter, only
        // the balance. Some succeed at once, some stay pending: both are counted.
        const [app, path] = index % 2 === 0 ? [first, 'disbursement'] : [second, 'withdraw']
        return app
          .client(merchant.sandbox)
          .post(`/api/v1/${path}`, disbursement(1000, index % 3 ? '123' : '900'))
      }),
    )
    const passed = answers.filter((answer) => answer.status === 200)
    const refused = answers.filter((answer) => answer.status !== 200)
    for (const answer of refused) {
      assert.equal(answer.status, 422, answer.text)
      assert.equal(answer.body.code, 'limit_exceeded', answer.text)
      assert.equal(answer.body.limit, 'dailyPayoutLimit')
    }
    const paidOut = passed
      .map((answer) => answer.body.data.disbursement ?? answer.body.data.withdraw)
      .filter((record) => record.status === 'succeeded' || record.status === 'pending')
      .reduce((total, record) => total + record.cashAmount, 0)
    assert.ok(paidOut <= limitMinor, `${paidOut} XOF paid out against a limit of ${limitMinor}`)
    t.diagnostic(`${passed.length} passed (${paidOut} of ${limitMinor} XOF), ${refused.length} refused`)
    assert.ok(passed.length > 0 && refused.length > 0, `${passed.length} passed, ${refused.length} refused`)
    const left = limitMinor - paidOut
    const last = refused.at(-1)!.body
    assert.ok(last.left >= 0 && last.left <= left, `the refusal says ${last.left} is left; ${left} is`)
    const entries = await first.db
      .selectFrom('ledger_entries')
      .select((eb) => eb.fn.sum<number>('amount_minor').as('total'))
      .where('merchant_id', '=', merchant.id)
      .where('type', '=', 'cash-out')
      .where('status', '!=', 'canceled')
      .executeTakeFirstOrThrow()
    assert.equal(Number(entries.total), paidOut, 'the ledger says what the answers said')
  })

  test('a fee set on one instance prices the next collect on the other within 1 s, audited', async () => {
    const merchant = await first.createMerchant('Repriced')
    const fees = async () => {
      const answer = await second.client(merchant.sandbox).post('/api/v1/collect', collect(1000))
      assert.equal(answer.status, 200, answer.text)
      return answer.body.data.collect.pricing.feesAmount as number
    }
    await fees()
    const row = {
      merchantId: merchant.id,
      kind: 'collect',
      ...side,
      percentageMilli: 10_000,
      additionalFeeMinor: 3,
      supportedByAccount: false,
    }
    assert.equal(await setFeeRow(first.context, row, cli), true)
    const started = performance.now()
    while ((await fees()) !== 103)
      assert.ok(performance.now() - started < 3000, 'the other instance still priced the old fee after 3 s')
    const ms = performance.now() - started
    assert.ok(ms < 1000, `the other instance priced with the old fee for ${Math.round(ms)} ms`)
    const audit = await first.db
      .selectFrom('audit_log')
      .select(['action', 'target', 'after_json'])
      .where('merchant_id', '=', merchant.id)
      .where('action', '=', 'fee.set')
      .execute()
    assert.deepEqual(
      audit.map((entry) => [entry.target, JSON.parse(entry.after_json!)]),
      [['collect orange-money CI', { percentage: 10, additionalFeeMinor: 3, bearer: 'customer' }]],
    )
  })
})
