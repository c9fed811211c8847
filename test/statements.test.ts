import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { parse } from 'csv-parse/sync'
import { startApp, type TestApp } from './support/app.ts'
import { describeEachStore } from './support/stores.ts'

/**
 * CONTRACT.md, Balance and statements: GET /api/v1/balance, the transaction record's additive
 * fields (currency, merchantReference, token, balanceAfter), and the CSV statement of the same
 * rows and filters, streamed without pagination.
 */

const environment = { RATE_LIMIT_PER_SECOND: '0', SANDBOX_DELAY_MS: '3600000', OPERATION_TTL: '2h' }
const callbackUrl = 'http://127.0.0.1:9/callback'
const header = 'reference,date,operation,type,status,amount,currency,balanceAfter,merchantReference,token'

describeEachStore('balance and statements', (store) => {
  let app: TestApp
  before(async () => {
    app = await startApp(store(), { environment })
  })
  after(() => app.close())

  async function newMerchant() {
    const merchant = await app.createMerchant()
    return { merchant, client: app.client(merchant.sandbox) }
  }

  const collect = (merchantReference: string, ending = '123', amount = 5000) => ({
    amount,
    channel: 'orange-money',
    country: 'CI',
    customer: { phoneNumber: `2250700000${ending}` },
    merchantReference,
    callbackUrl,
  })

  test('GET /api/v1/balance: balance, held and available per currency of the calling mode', async () => {
    const { client, merchant } = await newMerchant()
    const opening = await client.get('/api/v1/balance')
    assert.equal(opening.status, 200, opening.text)
    assert.equal(opening.body.message, 'Balance !')
    const xof = opening.body.data.balances.find((entry: { currency: string }) => entry.currency === 'XOF')
    assert.deepEqual(xof, { currency: 'XOF', balance: 1_000_000, held: 0, available: 1_000_000 })
    const currencies = opening.body.data.balances.map((entry: { currency: string }) => entry.currency)
    assert.deepEqual(currencies, [...currencies].sort(), 'one entry per currency, in order')
    assert.equal(new Set(currencies).size, currencies.length)

    // A pending payout (905 stays pending) holds its cashAmount: 10,000 + 1 % = 10,100.
    const payout = await client.post('/api/v1/disbursement', {
      ...collect('payout-1', '905', 10_000),
    })
    assert.equal(payout.status, 200, payout.text)
    const held = await client.get('/api/v1/balance')
    const xofHeld = held.body.data.balances.find((entry: { currency: string }) => entry.currency === 'XOF')
    assert.deepEqual(xofHeld, { currency: 'XOF', balance: 1_000_000, held: 10_100, available: 989_900 })

    // The live mode has its own balances, at zero.
    const live = await app.client(merchant.live).get('/api/v1/balance')
    assert.equal(live.status, 200, live.text)
    const liveXof = live.body.data.balances.find((entry: { currency: string }) => entry.currency === 'XOF')
    assert.deepEqual(liveXof, { currency: 'XOF', balance: 0, held: 0, available: 0 })
  })

  test('transaction records carry currency, merchantReference, token and a chained balanceAfter', async () => {
    const { client } = await newMerchant()
    const made = []
    for (const [index, ending] of ['123', '124', '901', '125'].entries()) {
      const answer = await client.post(
        '/api/v1/collect',
        collect(`order-${index}`, ending, 1000 * (index + 1)),
      )
      assert.equal(answer.status, 200, answer.text)
      made.push(answer.body.data.collect)
    }
    const withdraw = await client.post('/api/v1/withdraw', collect('withdraw-1', '123', 20_000))
    assert.equal(withdraw.status, 200, withdraw.text)

    const listed = await client.get('/api/v1/transaction', { perPage: 100 })
    const all = listed.body.data.transactions as Record<string, any>[]
    // Each currency has its own balance, so its own chain: this test's money is in XOF.
    const rows = all.filter((row) => row.currency === 'XOF')
    for (const row of all) {
      assert.equal(typeof row.merchantReference, 'string')
      assert.match(row.token, /^[a-z0-9]{5}(-[a-z0-9]{5}){4}$/)
    }
    const byReference = new Map(rows.map((row) => [row.merchantReference, row]))
    assert.equal(byReference.get('order-0')?.token, made[0].token)
    assert.equal(byReference.get('withdraw-1')?.operation, 'withdraw')
    assert.ok(!byReference.has('order-2'), 'a failed collect moves no money')

    // Oldest first, each succeeded row's balanceAfter is the one before plus its movement.
    const chronological = [...rows].reverse()
    let balance = 0
    for (const row of chronological) {
      assert.equal(row.status, 'succeeded')
      balance += row.type === 'cash-in' ? row.amount : -row.amount
      assert.equal(row.balanceAfter, balance, `${row.reference} (${row.merchantReference})`)
    }
    const latest = await client.get('/api/v1/balance')
    const xof = latest.body.data.balances.find((entry: { currency: string }) => entry.currency === 'XOF')
    assert.equal(xof.balance, balance, 'the newest balanceAfter is the balance')

    const pending = await client.post('/api/v1/disbursement', collect('payout-pending', '905', 1000))
    assert.equal(pending.status, 200)
    const [hold] = (await client.get('/api/v1/transaction', { status: 'pending' })).body.data.transactions
    assert.equal(hold.balanceAfter, null, 'a hold has no balance after it')
  })

  test('format=csv: RFC 4180 quoting, the list’s rows, filters and count, streamed as text/csv', async () => {
    const { client, merchant } = await newMerchant()
    // merchantReference refuses control characters, so no line breaks; everything else RFC 4180 quotes.
    const awkward = ['plain', 'with,comma', 'with "quotes"', '"quoted"', ' spaced ', 'é-ü-中', "semi;colon'"]
    for (const reference of awkward) {
      const answer = await client.post('/api/v1/collect', collect(reference))
      assert.equal(answer.status, 200, answer.text)
    }
    await client.post('/api/v1/disbursement', collect('payout-pending', '905', 1000))

    const response = await fetch(`${app.url}/api/v1/transaction?format=csv`, {
      headers: { 'api-key': merchant.sandbox.apiKey, 'secret-key': merchant.sandbox.secretKey },
    })
    assert.equal(response.status, 200)
    assert.equal(response.headers.get('content-type'), 'text/csv; charset=utf-8')
    assert.match(response.headers.get('content-disposition') ?? '', /attachment; filename="transactions.csv"/)
    const text = await response.text()
    assert.ok(text.startsWith(`${header}\r\n`), 'a header row, no byte-order mark')
    assert.ok(text.endsWith('\r\n'))
    assert.ok(text.includes('"with ""quotes"""'), 'quotes doubled inside a quoted field')
    assert.ok(text.includes('"with,comma"'))

    const parsed = parse(text, { columns: true, bom: false }) as Record<string, string>[]
    const listed = await client.get('/api/v1/transaction', { perPage: 100 })
    assert.equal(parsed.length, listed.body.meta.pagination.total, 'as many rows as the list’s total')
    const records = listed.body.data.transactions as Record<string, unknown>[]
    parsed.forEach((row, index) => {
      const record = records[index]!
      for (const column of header.split(',')) {
        const value = record[column]
        assert.equal(row[column], value === null ? '' : String(value), `${column} of row ${index}`)
      }
    })
    assert.deepEqual(
      parsed
        .map((row) => row.merchantReference)
        .filter((reference) => awkward.includes(reference!))
        .sort(),
      [...awkward].sort(),
      'every awkward reference survives the round trip',
    )

    const filtered = await csvOf(merchant.sandbox, '?format=csv&status=pending')
    const filteredRows = parse(filtered, { columns: true }) as Record<string, string>[]
    assert.deepEqual(
      filteredRows.map((row) => [row.merchantReference, row.status, row.balanceAfter]),
      [['payout-pending', 'pending', '']],
    )
    const none = await csvOf(merchant.sandbox, '?format=csv&type=reversal')
    assert.equal(none, `${header}\r\n`, 'no rows: the header alone')
  })

  test('a statement longer than a batch comes out whole and in order', async () => {
    const { client, merchant } = await newMerchant()
    for (let index = 0; index < 1005; index += 67) {
      await Promise.all(
        Array.from({ length: Math.min(67, 1005 - index) }, (_, offset) =>
          client.post('/api/v1/collect', collect(`bulk-${index + offset}`, '123', 100)),
        ),
      )
    }
    const rows = parse(await csvOf(merchant.sandbox, '?format=csv'), { columns: true }) as Record<
      string,
      string
    >[]
    const listed = await client.get('/api/v1/transaction', { perPage: 1 })
    assert.equal(rows.length, listed.body.meta.pagination.total)
    const sequences = rows.map((row) => Number(row.reference!.split('.')[2]))
    assert.deepEqual(
      sequences,
      [...sequences].sort((a, b) => b - a),
      'newest first',
    )
    assert.equal(new Set(sequences).size, sequences.length, 'no row twice')
  })

  test('a bad format is a 422 naming the allowed values', async () => {
    const { client } = await newMerchant()
    const response = await client.get('/api/v1/transaction', { format: 'xlsx' })
    assert.equal(response.status, 422)
    assert.equal(response.body.errors[0].field, 'format')
  })

  async function csvOf(keys: { apiKey: string; secretKey: string }, query: string) {
    const response = await fetch(`${app.url}/api/v1/transaction${query}`, {
      headers: { 'api-key': keys.apiKey, 'secret-key': keys.secretKey },
    })
    assert.equal(response.status, 200)
    return response.text()
  }
})
