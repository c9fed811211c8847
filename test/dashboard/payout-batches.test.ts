import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { startApp, type TestApp } from '../support/app.ts'
import { csrfIn, type SignedInMember, signedInMember } from '../support/dashboard.ts'
import { describeEachStore } from '../support/stores.ts'

const header = 'amount,channel,country,phoneNumber,fullName,merchantReference'

/** A CSV of `count` good sandbox rows for Côte d'Ivoire, numbered from `first`. */
function goodRows(count: number, prefix: string, first = 1): string[] {
  return Array.from(
    { length: count },
    (_, index) =>
      `1000,orange-money,CI,+22507000${String(first + index).padStart(5, '0')},"Diop, Awa",${prefix}-${first + index}`,
  )
}

describeEachStore('dashboard: payout batch upload and preview', (store) => {
  let app: TestApp
  before(async () => {
    app = await startApp(store())
  })
  after(() => app?.close())

  async function upload(member: SignedInMember, csv: string, reference = '') {
    const page = await member.browser.get('/dashboard/sandbox/payout-batches')
    assert.equal(page.status, 200)
    return member.browser.postMultipart(
      '/dashboard/sandbox/payout-batches/preview',
      { csrf: csrfIn(page.text, '/dashboard/sandbox/payout-batches/preview'), reference },
      { file: { name: 'batch.csv', text: csv } },
    )
  }

  test('a preview of good rows shows the totals and the submit form; nothing is written', async () => {
    const finance = await signedInMember(app, { role: 'finance' })
    const operationsOf = () =>
      app.db.selectFrom('operations').select('id').where('merchant_id', '=', finance.merchantId).execute()
    const before = (await operationsOf()).length
    const csv = [header, ...goodRows(3, 'good')].join('\r\n')
    const preview = await upload(finance, csv, 'salaries-june')
    assert.equal(preview.status, 200, preview.text)
    assert.match(preview.text, /3 rows, all good/)
    // Three items of XOF 1,000: the amount total, in the totals table.
    const totals = preview.text.slice(
      preview.text.indexOf('id="batch-totals"'),
      preview.text.indexOf('</table>', preview.text.indexOf('id="batch-totals"')),
    )
    assert.match(totals, /XOF\u00a03,000/)
    assert.match(preview.text, /name="reference" value="salaries-june"/)
    assert.match(preview.text, /Diop, Awa/)
    assert.equal((await operationsOf()).length, before, 'a preview writes nothing')
  })

  test("a preview names each bad row's error, and offers no submit", async () => {
    const finance = await signedInMember(app, { role: 'finance' })
    const csv = [
      header,
      ...goodRows(1, 'mixed'),
      '12.5x,orange-money,CI,+2250700000002,Kone,mixed-2',
      '1000,no-such-channel,CI,+2250700000003,Kone,mixed-3',
      '1000,orange-money,CI,+2250700000004,Kone,mixed-1',
      '1000,orange-money,CI,12,Kone,mixed-5',
      ...goodRows(1, 'mixed', 7),
    ].join('\n')
    const preview = await upload(finance, csv)
    assert.equal(preview.status, 422)
    assert.match(preview.text, /6 rows, 5 with errors/)
    assert.match(preview.text, /amount: Write the amount as a positive number/)
    assert.match(preview.text, /channel: .*no-such-channel/)
    assert.match(preview.text, /merchantReference: This reference is on another row/)
    assert.match(preview.text, /phoneNumber: Write 8 to 15 digits/)
    assert.ok(!preview.text.includes('Submit the batch'), 'no submit while a row is wrong')
  })

  test('a file of the wrong columns, an empty one and one over 1,000 rows are refused with what to do', async () => {
    const finance = await signedInMember(app, { role: 'finance' })
    const columns = await upload(finance, 'amount,phone\n1000,+2250700000001')
    assert.equal(columns.status, 422)
    assert.match(columns.text, /The first line must name the columns/)
    const empty = await upload(finance, `${header}\n`)
    assert.match(empty.text, /no row under its first line/)
    const many = await upload(finance, [header, ...goodRows(1001, 'many')].join('\n'))
    assert.equal(many.status, 422)
    assert.match(many.text, /1001 rows, more than 1000/)
    const broken = await upload(finance, `${header}\n1000,"orange-money,CI\n`)
    assert.match(broken.text, /is not a CSV file Sika can read/)
  })

  test('in French, the preview is in French', async () => {
    const finance = await signedInMember(app, { role: 'finance' })
    finance.browser.cookies.set('sika_lang', 'fr')
    const preview = await upload(finance, [header, '0,orange-money,CI,+2250700000001,,fr-1'].join('\n'))
    assert.match(preview.text, /1 lignes, dont 1 avec des erreurs/)
    assert.match(preview.text, /Écrivez le montant/)
  })

  test('a viewer sees the page but no upload form, and cannot post a file', async () => {
    const viewer = await signedInMember(app, { role: 'viewer' })
    const page = await viewer.browser.get('/dashboard/sandbox/payout-batches')
    assert.equal(page.status, 200)
    assert.ok(!page.text.includes('/payout-batches/preview'))
    const posted = await viewer.browser.postMultipart(
      '/dashboard/sandbox/payout-batches/preview',
      { csrf: viewer.csrf },
      { file: { name: 'batch.csv', text: [header, ...goodRows(1, 'viewer')].join('\n') } },
    )
    assert.equal(posted.status, 403)
  })

  test('an upload without the CSRF token is refused', async () => {
    const finance = await signedInMember(app, { role: 'finance' })
    const posted = await finance.browser.postMultipart(
      '/dashboard/sandbox/payout-batches/preview',
      {},
      { file: { name: 'batch.csv', text: [header, ...goodRows(1, 'csrf')].join('\n') } },
    )
    assert.equal(posted.status, 403)
  })
})
