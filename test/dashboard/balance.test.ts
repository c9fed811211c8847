import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { statementColumns } from '../../src/app/records.ts'
import { startApp, type TestApp } from '../support/app.ts'
import { signedInMember } from '../support/dashboard.ts'
import { initiate } from '../support/operations.ts'
import { describeEachStore } from '../support/stores.ts'

describeEachStore('dashboard: the balance page', (store) => {
  let app: TestApp
  before(async () => {
    app = await startApp(store())
  })
  after(() => app?.close())

  /** A merchant with a sandbox collect of XOF 5,000 that succeeded at once. */
  async function merchantWithCollect() {
    const merchant = await app.createMerchant('Balance merchant')
    const collect = await initiate(app.client(merchant.sandbox), 'collect', {
      amount: 5_000,
      channel: 'orange-money',
      country: 'CI',
      customer: { phoneNumber: '+2250700000123' },
      merchantReference: 'balance-collect',
      callbackUrl: 'http://127.0.0.1:9/callbacks',
    })
    assert.equal(collect.status, 'succeeded')
    return { merchant, collect }
  }

  test('a viewer sees the balances and the movements after a sandbox collect, but not the statement form', async () => {
    const { merchant, collect } = await merchantWithCollect()
    const viewer = await signedInMember(app, { role: 'viewer', merchantId: merchant.id })
    const page = await viewer.browser.get('/dashboard/sandbox/balance')
    assert.equal(page.status, 200)
    assert.match(page.text, /id="balances-table"/)
    assert.match(page.text, /XOF/)
    assert.ok(page.text.includes(collect.token), 'the collect among the movements')
    assert.ok(page.text.includes('balance-collect'))
    assert.ok(!page.text.includes('statement.csv'), 'no statement form without export')
    const csv = await viewer.browser.get('/dashboard/sandbox/balance/statement.csv')
    assert.equal(csv.status, 403)
  })

  test('a finance member downloads the statement CSV with the movements, and the export is audited', async () => {
    const { merchant, collect } = await merchantWithCollect()
    const finance = await signedInMember(app, { role: 'finance', merchantId: merchant.id })
    const page = await finance.browser.get('/dashboard/sandbox/balance')
    assert.match(page.text, /action="\/dashboard\/sandbox\/balance\/statement.csv"/)
    const today = new Date().toISOString().slice(0, 10)
    const csv = await finance.browser.get(
      `/dashboard/sandbox/balance/statement.csv?from=${today}&to=${today}`,
    )
    assert.equal(csv.status, 200, csv.text)
    assert.equal(csv.headers.get('content-type'), 'text/csv; charset=utf-8')
    const lines = csv.text.trim().split('\r\n')
    assert.equal(lines[0], statementColumns.join(','))
    assert.ok(
      lines.some((line) => line.includes(collect.token) && line.includes('balance-collect')),
      'the collect is in the statement',
    )
    assert.ok(
      lines.some((line) => line.includes('opening-balance-XOF')),
      'the opening balance too',
    )

    const before = await finance.browser.get('/dashboard/sandbox/balance/statement.csv?to=2000-01-01')
    assert.equal(before.text.trim().split('\r\n').length, 1, 'only the header before anything moved')

    const wrong = await finance.browser.get('/dashboard/sandbox/balance/statement.csv?from=yesterday')
    assert.equal(wrong.status, 400)
    assert.match(wrong.text, /YYYY-MM-DD/)

    const rows = await app.db
      .selectFrom('audit_log')
      .selectAll()
      .where('merchant_id', '=', merchant.id)
      .where('action', '=', 'statement.exported')
      .execute()
    assert.equal(rows.length, 2)
    assert.ok(rows.every((row) => row.actor_label === finance.email && row.mode === 'sandbox'))
  })

  test('the home page shows the sandbox’s opening balances as such, not as today’s recharges', async () => {
    const { merchant, collect } = await merchantWithCollect()
    const viewer = await signedInMember(app, { role: 'viewer', merchantId: merchant.id })
    const home = await viewer.browser.get('/dashboard/sandbox')
    assert.equal(home.status, 200)
    assert.match(
      home.text,
      /The sandbox opened your balances with <a href="\/dashboard\/sandbox\/operations\/[a-z0-9-]{29}">XOF\u00a01,000,000<\/a>/,
    )
    const today = home.text.slice(home.text.indexOf('id="today"'), home.text.indexOf('id="latest"'))
    assert.ok(!today.includes('Recharge'), 'no recharge counted today')
    assert.match(
      today,
      /<td>Collect<\/td><td><span class="status status-succeeded">Succeeded<\/span><\/td><td class="num">1<\/td>/,
    )
    const latest = home.text.slice(home.text.indexOf('id="latest"'))
    assert.match(latest, /<td>Opening balance<\/td>/)
    assert.ok(!latest.includes('0000000000'), 'no made-up phone number')
    assert.ok(latest.includes(collect.token))
  })

  test('a transfer’s lines say what happened, in the order its money took effect', async () => {
    const merchant = await app.createMerchant('Transfer merchant')
    const response = await app.client(merchant.sandbox).post('/api/v1/transfer', {
      from: { amount: 10_000, channel: 'wave', country: 'SN', customer: { phoneNumber: '+221770000123' } },
      to: {
        amount: 8_000,
        channel: 'orange-money',
        country: 'SN',
        customer: { phoneNumber: '+221770000124' },
      },
      merchantReference: 'transfer-lines',
      callbackUrl: 'http://127.0.0.1:9/callbacks',
    })
    assert.equal(response.status, 200, response.text)
    const transfer = response.body.data.transfer
    assert.equal(transfer.status, 'succeeded')
    const viewer = await signedInMember(app, { role: 'viewer', merchantId: merchant.id })
    const page = await viewer.browser.get('/dashboard/sandbox/balance')
    const lines = [
      ...page.text.matchAll(/<tr><td>[^<]*<\/td><td><a href="[^"]*">[^<]*<\/a><\/td><td>([^<]*)<br\/>/g),
    ].map((match) => match[1])
    assert.deepEqual(lines.slice(0, 3), [
      'Transfer complete: the hold for a refund is released, nothing moved',
      'Paid to the recipient',
      'Received from the sender',
    ])
    const record = await viewer.browser.get(`/dashboard/sandbox/operations/${transfer.token}`)
    const movements = record.text.slice(
      record.text.indexOf('id="movements"'),
      record.text.indexOf('id="callbacks"'),
    )
    const order = ['Received from the sender', 'Paid to the recipient', 'Transfer complete'].map((text) =>
      movements.indexOf(text),
    )
    assert.ok(
      order.every((at, index) => at > (order[index - 1] ?? -1)),
      `oldest first, in effect order: ${order}`,
    )
  })

  test('the live balance page is its own place', async () => {
    const { merchant, collect } = await merchantWithCollect()
    const owner = await signedInMember(app, { role: 'owner', merchantId: merchant.id })
    const live = await owner.browser.get('/dashboard/live/balance')
    assert.equal(live.status, 200)
    assert.ok(!live.text.includes(collect.token))
    assert.match(live.text, /Live: real money/)
  })
})
