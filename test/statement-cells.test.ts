import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { parse } from 'csv-parse/sync'
import { csvLine } from '../src/http/csv.ts'
import { startApp, type TestApp } from './support/app.ts'
import { describeEachStore } from './support/stores.ts'

/**
 * CONTRACT.md, Balance and statements: a CSV statement's text cells that a spreadsheet would read
 * as a formula (starting with =, +, -, @, a tab or a carriage return) start with a quote, as OWASP
 * advises; numbers are written as they are, and RFC 4180's quoting is unchanged.
 */

test('csvLine: formula-like text cells gain a leading quote; numbers and other text are unchanged', () => {
  assert.equal(
    csvLine(["=cmd|' /C calc'!A0", '@SUM(A1:A2)', '+1', '-1', '\tx', '\rx', 'plain', -5, 0.5, null]),
    `'=cmd|' /C calc'!A0,'@SUM(A1:A2),'+1,'-1,'\tx,"'\rx",plain,-5,0.5,\r\n`,
  )
  assert.equal(csvLine(['=1+2,"x"', 'a "b"']), `"'=1+2,""x""","a ""b"""\r\n`, 'quoted after the prefix')
  assert.equal(csvLine(['x=1', ' =1', '']), 'x=1, =1,\r\n', 'only the first character counts')
})

const hostileReferences = ["=cmd|' /C calc'!A0", "@SUM(1+1)*cmd|' /C calc'!A0", '+1+1', '-1+cmd']

describeEachStore('CSV statements neutralise formula cells', (store) => {
  let app: TestApp
  before(async () => {
    app = await startApp(store())
  })
  after(() => app.close())

  test('a merchantReference that starts a formula is written as text, with a leading quote', async (t) => {
    const merchant = await app.createMerchant()
    const client = app.client(merchant.sandbox)
    for (const merchantReference of hostileReferences) {
      const created = await client.post('/api/v1/collect', {
        amount: 5000,
        channel: 'orange-money',
        country: 'CI',
        customer: { phoneNumber: '2250700000123' },
        merchantReference,
        callbackUrl: 'http://127.0.0.1:9/callback',
      })
      assert.equal(created.status, 200, created.text)
    }
    const response = await fetch(`${app.url}/api/v1/transaction?format=csv&operation=collect`, {
      headers: { 'api-key': merchant.sandbox.apiKey, 'secret-key': merchant.sandbox.secretKey },
    })
    assert.equal(response.status, 200)
    const text = await response.text()
    const rows = parse(text, { columns: true }) as Record<string, string>[]
    const written = rows.map((row) => row.merchantReference)
    t.diagnostic(`merchantReference cells as written: ${JSON.stringify(written)}`)
    assert.deepEqual(written.sort(), hostileReferences.map((reference) => `'${reference}`).sort())
    for (const row of rows) {
      assert.match(row.amount!, /^\d+(\.\d+)?$/, 'amounts are numbers, never prefixed')
      assert.match(row.balanceAfter!, /^\d+(\.\d+)?$/)
    }
    for (const line of text.split('\r\n').slice(1, -1))
      assert.doesNotMatch(line.split(',').at(-2)!, /^[=+\-@]/, `no cell starts a formula: ${line}`)
  })
})
