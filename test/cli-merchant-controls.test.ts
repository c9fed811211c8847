import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { startApp, type TestApp } from './support/app.ts'
import { runSika } from './support/cli.ts'
import { describeEachStore } from './support/stores.ts'

/**
 * CONTRACT.md, Platform console: `sika merchant pause-payouts`, `resume-payouts` and `limit`, as an
 * operator types them against the store a running service uses; each change audited with what it
 * was before and after, and obeyed by the service within 1 s.
 */
describeEachStore('sika merchant pause-payouts, resume-payouts, limit and show', (store) => {
  let app: TestApp
  const sika = (...args: string[]) => runSika(store().databaseUrl, args)
  before(async () => {
    app = await startApp(store())
  })
  after(() => app.close())

  let references = 0
  const payout = (amount = 1000) => ({
    amount,
    channel: 'orange-money',
    country: 'CI',
    customer: { phoneNumber: '+2250700000123' },
    merchantReference: `cli-payout-${++references}`,
    callbackUrl: 'http://127.0.0.1:9/callbacks',
  })

  async function untilStatus(send: () => Promise<{ status: number; text: string }>, status: number) {
    const started = performance.now()
    for (;;) {
      const answer = await send()
      if (answer.status === status) return
      assert.ok(performance.now() - started < 3000, `still ${answer.status} after 3 s: ${answer.text}`)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }

  test('pause, show, list, resume: the service obeys, each change is audited', async () => {
    const merchant = await app.createMerchant('Paused by the CLI')
    const client = app.client(merchant.sandbox)
    const paused = await sika('merchant', 'pause-payouts', merchant.id, '--reason', 'unusual payouts')
    assert.equal(paused.code, 0, paused.stderr)
    assert.match(paused.stdout, /payouts paused \(unusual payouts\)/)
    await untilStatus(() => client.post('/api/v1/disbursement', payout()), 403)

    const shown = await sika('merchant', 'show', merchant.id, '--json')
    assert.equal(shown.code, 0, shown.stderr)
    assert.deepEqual(JSON.parse(shown.stdout), {
      id: merchant.id,
      payoutsPaused: true,
      payoutsPausedReason: 'unusual payouts',
      limits: [],
    })
    const listed = await sika('merchant', 'list')
    assert.match(listed.stdout, new RegExp(`${merchant.id} .*payouts paused`))

    const resumed = await sika('merchant', 'resume-payouts', merchant.id)
    assert.equal(resumed.code, 0, resumed.stderr)
    await untilStatus(() => client.post('/api/v1/disbursement', payout()), 200)

    const audit = await app.db
      .selectFrom('audit_log')
      .select(['action', 'actor_kind', 'actor_label'])
      .where('merchant_id', '=', merchant.id)
      .orderBy('at_us')
      .execute()
    assert.deepEqual(
      audit.map((row) => [row.action, row.actor_kind, row.actor_label]),
      [
        ['payouts.paused', 'cli', 'cli'],
        ['payouts.resumed', 'cli', 'cli'],
      ],
    )
    // The platform's own audit log names each change the CLI made too.
    const platformAudit = await app.db
      .selectFrom('platform_audit_log')
      .select(['action', 'actor_kind'])
      .where('target', '=', merchant.id)
      .orderBy('at_us')
      .execute()
    assert.deepEqual(
      platformAudit.map((row) => [row.action, row.actor_kind]),
      [
        ['merchant.payouts_paused', 'cli'],
        ['merchant.payouts_resumed', 'cli'],
      ],
    )
  })

  test('limit sets both limits, a limit left out is removed; list and show say so', async () => {
    const merchant = await app.createMerchant('Limited by the CLI')
    const set = await sika(
      'merchant',
      'limit',
      merchant.id,
      '--mode',
      'sandbox',
      '--currency',
      'XOF',
      '--max-amount',
      '5000',
      '--daily-payout-limit',
      '100000',
    )
    assert.equal(set.code, 0, set.stderr)
    assert.match(set.stdout, /sandbox XOF maxAmount 5000, dailyPayoutLimit 100000/)
    const client = app.client(merchant.sandbox)
    await untilStatus(() => client.post('/api/v1/disbursement', payout(6000)), 422)
    const listed = await sika('merchant', 'list')
    assert.match(listed.stdout, /limit sandbox XOF maxAmount 5000, dailyPayoutLimit 100000/)
    const listedJson = JSON.parse((await sika('merchant', 'list', '--json')).stdout)
    assert.deepEqual(listedJson.find((entry: { id: string }) => entry.id === merchant.id).limits, [
      { mode: 'sandbox', currency: 'XOF', maxAmount: 5000, dailyPayoutLimit: 100000 },
    ])

    const narrowed = await sika(
      'merchant',
      'limit',
      merchant.id,
      '--mode',
      'sandbox',
      '--currency',
      'XOF',
      '--daily-payout-limit',
      '50000',
    )
    assert.equal(narrowed.code, 0, narrowed.stderr)
    const shown = JSON.parse((await sika('merchant', 'show', merchant.id, '--json')).stdout)
    assert.deepEqual(shown.limits, [
      { mode: 'sandbox', currency: 'XOF', maxAmount: null, dailyPayoutLimit: 50000 },
    ])
    await untilStatus(() => client.post('/api/v1/disbursement', payout(6000)), 200)

    const audit = await app.db
      .selectFrom('audit_log')
      .select(['action', 'mode', 'target', 'before_json', 'after_json'])
      .where('merchant_id', '=', merchant.id)
      .orderBy('at_us')
      .execute()
    assert.deepEqual(
      audit.map((row) => [
        row.action,
        row.mode,
        row.target,
        JSON.parse(row.before_json!),
        JSON.parse(row.after_json!),
      ]),
      [
        [
          'limits.set',
          'sandbox',
          'sandbox XOF',
          { maxAmount: null, dailyPayoutLimit: null },
          { maxAmount: 5000, dailyPayoutLimit: 100000 },
        ],
        [
          'limits.set',
          'sandbox',
          'sandbox XOF',
          { maxAmount: 5000, dailyPayoutLimit: 100000 },
          { maxAmount: null, dailyPayoutLimit: 50000 },
        ],
      ],
    )
  })

  test('suspend and activate are audited with the status before and after', async () => {
    const merchant = await app.createMerchant('Suspended by the CLI')
    assert.equal((await sika('merchant', 'suspend', merchant.id)).code, 0)
    assert.equal((await sika('merchant', 'activate', merchant.id)).code, 0)
    const audit = await app.db
      .selectFrom('audit_log')
      .select(['action', 'actor_kind', 'before_json', 'after_json'])
      .where('merchant_id', '=', merchant.id)
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
        ['merchant.suspended', 'cli', { status: 'active' }, { status: 'suspended' }],
        ['merchant.activated', 'cli', { status: 'suspended' }, { status: 'active' }],
      ],
    )
    const platformAudit = await app.db
      .selectFrom('platform_audit_log')
      .select(['action', 'actor_kind', 'before_json', 'after_json'])
      .where('target', '=', merchant.id)
      .orderBy('at_us')
      .execute()
    assert.deepEqual(
      platformAudit.map((row) => [row.action, row.actor_kind, row.before_json, row.after_json]),
      audit.map((row) => [row.action, row.actor_kind, row.before_json, row.after_json]),
      'the platform audit log holds the same changes',
    )
  })

  test('mistakes: the one thing wrong, with the command’s usage; an unknown merchant exits 1', async () => {
    const cases: [string[], RegExp][] = [
      [['merchant', 'pause-payouts', 'mer_x'], /^sika merchant pause-payouts: needs --reason TEXT/],
      [['merchant', 'pause-payouts', '--reason', 'x'], /^sika merchant pause-payouts: needs ID/],
      [
        ['merchant', 'limit', 'mer_x', '--currency', 'XOF'],
        /^sika merchant limit: needs --mode: sandbox or live/,
      ],
      [
        ['merchant', 'limit', 'mer_x', '--mode', 'live', '--currency', 'EUR'],
        /--currency is XOF, .* not EUR/,
      ],
      [
        ['merchant', 'limit', 'mer_x', '--mode', 'live', '--currency', 'XOF', '--max-amount', '0'],
        /--max-amount is an amount above 0/,
      ],
      [
        ['merchant', 'limit', 'mer_x', '--mode', 'live', '--currency', 'XOF', '--max-amount', '-5'],
        /^sika merchant limit: --max-amount takes a value that starts with "-" only as --max-amount=-5/,
      ],
    ]
    for (const [args, expected] of cases) {
      const result = await sika(...args)
      assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`)
      assert.match(result.stderr, expected)
      assert.match(result.stderr, /Usage: sika merchant/)
    }
    const unknown = await sika('merchant', 'resume-payouts', 'mer_unknown')
    assert.equal(unknown.code, 1)
    assert.equal(unknown.stderr, 'sika: no merchant has id mer_unknown\n')
  })
})
