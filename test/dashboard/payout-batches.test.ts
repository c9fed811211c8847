import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { isRefusal } from '../../src/app/dashboard/refusals.ts'
import { cliChanger, inviteAgain } from '../../src/app/dashboard/team.ts'
import { startApp, type TestApp } from '../support/app.ts'
import { csrfIn, nextTotpCode, type SignedInMember, signedInMember, totpCode } from '../support/dashboard.ts'
import { initiate } from '../support/operations.ts'
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

  /** The XOF balance of the merchant's sandbox: posted, held, available. */
  async function xof(merchantId: string) {
    const balances = await app.context.store.ledger.balances(merchantId, 'sandbox')
    const balance = balances.find((entry) => entry.currency === 'XOF')
    assert.ok(balance, 'a sandbox XOF balance')
    return balance
  }

  /** A batch uploaded, previewed and submitted by `creator`: the page it lands on. */
  async function submitted(creator: SignedInMember, prefix: string, count = 3) {
    const preview = await upload(creator, [header, ...goodRows(count, prefix)].join('\n'), `${prefix}-batch`)
    assert.equal(preview.status, 200, preview.text)
    const csv = /name="csv" value="([^"]*)"/.exec(preview.text)?.[1] ?? ''
    const answer = await creator.browser.postMultipart('/dashboard/sandbox/payout-batches', {
      csrf: csrfIn(preview.text, '/dashboard/sandbox/payout-batches'),
      csv,
      reference: `${prefix}-batch`,
    })
    assert.equal(answer.status, 303, answer.text)
    const path = answer.location ?? ''
    assert.match(path, /^\/dashboard\/sandbox\/payout-batches\/[^/?]+\?done=submitted$/)
    return { path: path.split('?')[0] ?? '', page: await creator.browser.get(path), preview }
  }

  async function auditActions(merchantId: string) {
    const rows = await app.db
      .selectFrom('audit_log')
      .selectAll()
      .where('merchant_id', '=', merchantId)
      .where('action', 'like', 'payout_batch.%')
      .orderBy('at_us')
      .execute()
    return rows.map((row) => [row.action, row.actor_label])
  }

  test('its creator invited again under the same email is still its creator, and cannot approve it', async () => {
    const creator = await signedInMember(app, { role: 'finance' })
    const { path } = await submitted(creator, 'returning')
    const closed = await inviteAgain(app.context, cliChanger(creator.merchantId), creator.email)
    assert.ok(!isRefusal(closed), 'the account is closed for a new invitation')
    const returning = await signedInMember(app, {
      role: 'finance',
      merchantId: creator.merchantId,
      email: creator.email,
    })
    const page = await returning.browser.get(path)
    const forced = await returning.browser.post(`${path}/approve`, {
      csrf: csrfIn(page.text, `${path}/reject`),
      code: await nextTotpCode(returning.totpSecret),
    })
    assert.equal(forced.status, 422)
    assert.match(forced.text, /You created this batch: another member/)
    assert.match(forced.text, /Awaiting approval/)
  })

  test('a dashboard upload waits; its creator cannot approve it; a second member approves it with a code', async () => {
    const creator = await signedInMember(app, { role: 'finance' })
    const before = await xof(creator.merchantId)
    const { path, page, preview } = await submitted(creator, 'approve')
    assert.match(page.text, /it waits for a second member to approve it/)
    assert.match(page.text, /Awaiting approval/)
    assert.match(page.text, /You created this batch/)
    assert.ok(!page.text.includes(`action="${path}/approve"`), 'no approve form for the creator')
    const held = await xof(creator.merchantId)
    assert.ok(held.heldMinor > before.heldMinor, 'the items are held at acceptance')
    const items = await app.db
      .selectFrom('operations')
      .select('status')
      .where('merchant_id', '=', creator.merchantId)
      .where('kind', '=', 'disbursement')
      .execute()
    assert.deepEqual(
      items.map((item) => item.status),
      ['pending', 'pending', 'pending'],
      'nothing paid before approval',
    )

    // The creator posts the approval anyway, with a good code: refused, and nothing changes.
    const forced = await creator.browser.post(`${path}/approve`, {
      csrf: csrfIn(page.text, `${path}/reject`),
      code: await totpCode(creator.totpSecret),
    })
    assert.equal(forced.status, 422)
    assert.match(forced.text, /You created this batch: another member/)
    assert.match(forced.text, /Awaiting approval/)

    // The previewed file submitted again (a second click): the same batch, audited once.
    const again = await creator.browser.postMultipart('/dashboard/sandbox/payout-batches', {
      csrf: csrfIn(preview.text, '/dashboard/sandbox/payout-batches'),
      csv: /name="csv" value="([^"]*)"/.exec(preview.text)?.[1] ?? '',
      reference: 'approve-batch',
    })
    assert.equal(again.location?.split('?')[0], path, 'the same batch')

    const approver = await signedInMember(app, { role: 'admin', merchantId: creator.merchantId })
    const seen = await approver.browser.get(path)
    assert.match(seen.text, new RegExp(`action="${path}/approve"`))
    const wrong = await approver.browser.post(`${path}/approve`, {
      csrf: csrfIn(seen.text, `${path}/approve`),
      code: '000000',
    })
    assert.equal(wrong.status, 422)
    assert.match(wrong.text, /This code is not right/)
    const approved = await approver.browser.post(`${path}/approve`, {
      csrf: csrfIn(seen.text, `${path}/approve`),
      code: await nextTotpCode(approver.totpSecret),
    })
    assert.equal(approved.status, 303, approved.text)
    const after = await approver.browser.get(approved.location ?? '')
    assert.match(after.text, /The batch is approved/)
    assert.match(after.text, /Approved by/)
    assert.deepEqual(await auditActions(creator.merchantId), [
      ['payout_batch.created', creator.email],
      ['payout_batch.approved', approver.email],
    ])
  })

  test('a reject releases every hold, and the results CSV gives each item its status and reason', async () => {
    const creator = await signedInMember(app, { role: 'owner' })
    const before = await xof(creator.merchantId)
    const { path, page } = await submitted(creator, 'reject', 4)
    assert.ok((await xof(creator.merchantId)).heldMinor > before.heldMinor)
    const rejected = await creator.browser.post(`${path}/reject`, {
      csrf: csrfIn(page.text, `${path}/reject`),
    })
    assert.equal(rejected.status, 303, rejected.text)
    const after = await creator.browser.get(rejected.location ?? '')
    assert.match(after.text, /The batch is rejected: every hold is released/)
    assert.deepEqual(await xof(creator.merchantId), before, 'every hold released, nothing posted')
    const csv = await creator.browser.get(`${path}/results.csv`)
    assert.equal(csv.status, 200)
    assert.equal(csv.headers.get('content-type'), 'text/csv; charset=utf-8')
    const lines = csv.text.trim().split('\r\n')
    assert.equal(
      lines[0],
      'token,merchantReference,phoneNumber,fullName,amount,currency,status,failureCode,failureMessage',
    )
    assert.equal(lines.length, 5)
    assert.ok(
      lines.slice(1).every((line) => line.includes(',canceled,canceled_by_merchant,')),
      lines.join('\n'),
    )
    assert.ok(lines[1]?.includes('"Diop, Awa"'))
    assert.deepEqual(await auditActions(creator.merchantId), [
      ['payout_batch.created', creator.email],
      ['payout_batch.rejected', creator.email],
    ])
  })

  test('the list shows the batch; a viewer reads it but is offered no action', async () => {
    const creator = await signedInMember(app, { role: 'finance' })
    const { path } = await submitted(creator, 'listed', 1)
    const viewer = await signedInMember(app, { role: 'viewer', merchantId: creator.merchantId })
    const list = await viewer.browser.get('/dashboard/sandbox/payout-batches')
    assert.match(list.text, /listed-batch/)
    const page = await viewer.browser.get(path)
    assert.equal(page.status, 200)
    assert.ok(!page.text.includes('/approve"') && !page.text.includes('/reject"'))
    const posted = await viewer.browser.post(`${path}/reject`, { csrf: viewer.csrf })
    assert.equal(posted.status, 403)
    assert.equal(
      (await viewer.browser.get('/dashboard/live/payout-batches')).text.includes('listed-batch'),
      false,
    )
  })

  test('the operation page cancels a batch item awaiting approval; a final one is a 409 that says why', async () => {
    const creator = await signedInMember(app, { role: 'finance' })
    const before = await xof(creator.merchantId)
    const { page } = await submitted(creator, 'cancel-one', 1)
    const token = /\/dashboard\/sandbox\/operations\/([a-z0-9-]+)"/.exec(page.text)?.[1] ?? ''
    const path = `/dashboard/sandbox/operations/${token}`
    const operation = await creator.browser.get(path)
    assert.match(operation.text, new RegExp(`action="${path}/cancel"`))
    const viewer = await signedInMember(app, { role: 'viewer', merchantId: creator.merchantId })
    assert.ok(!(await viewer.browser.get(path)).text.includes(`${path}/cancel`), 'no cancel for a viewer')
    const canceled = await creator.browser.post(`${path}/cancel`, {
      csrf: csrfIn(operation.text, `${path}/cancel`),
      reason: 'wrong number',
    })
    assert.equal(canceled.status, 303, canceled.text)
    const after = await creator.browser.get(canceled.location ?? '')
    assert.match(after.text, /status-canceled/)
    assert.match(after.text, /canceled_by_merchant/)
    assert.ok(!after.text.includes(`action="${path}/cancel"`), 'a canceled operation offers no cancel')
    assert.deepEqual(await xof(creator.merchantId), before, 'the hold is released')
    const again = await creator.browser.post(`${path}/cancel`, {
      csrf: csrfIn(after.text, '/dashboard/logout'),
    })
    assert.equal(again.status, 303, 'cancelling twice answers the same canceled record')
    const audited = await app.db
      .selectFrom('audit_log')
      .selectAll()
      .where('merchant_id', '=', creator.merchantId)
      .where('action', '=', 'operation.canceled')
      .execute()
    assert.equal(audited[0]?.target, token)
    assert.match(audited[0]?.after_json ?? '', /wrong number/)
  })

  test('a succeeded disbursement offers no cancel, and a cancel posted anyway is a 409 that says why', async () => {
    const merchant = await app.createMerchant('Cancel merchant')
    const paid = await initiate(app.client(merchant.sandbox), 'disbursement', {
      amount: 1_000,
      channel: 'orange-money',
      country: 'CI',
      customer: { phoneNumber: '+2250700000123' },
      merchantReference: 'paid-once',
      callbackUrl: 'http://127.0.0.1:9/callbacks',
    })
    assert.equal(paid.status, 'succeeded')
    const finance = await signedInMember(app, { role: 'finance', merchantId: merchant.id })
    const path = `/dashboard/sandbox/operations/${paid.token}`
    const page = await finance.browser.get(path)
    assert.ok(!page.text.includes(`${path}/cancel`))
    const refused = await finance.browser.post(`${path}/cancel`, { csrf: finance.csrf })
    assert.equal(refused.status, 409)
    assert.match(refused.text, /Sika refused this:.*succeeded/)
  })

  test('a batch beyond the balance passes the preview but is refused on submit with the total and what is available; nothing is made', async () => {
    const finance = await signedInMember(app, { role: 'finance' })
    const before = await xof(finance.merchantId)
    const rows = [1, 2, 3].map((index) => `400000,orange-money,CI,+22507000005${index}0,,big-${index}`)
    const preview = await upload(finance, [header, ...rows].join('\n'), 'too-big')
    assert.equal(preview.status, 200, preview.text)
    const answer = await finance.browser.postMultipart('/dashboard/sandbox/payout-batches', {
      csrf: csrfIn(preview.text, '/dashboard/sandbox/payout-batches'),
      csv: /name="csv" value="([^"]*)"/.exec(preview.text)?.[1] ?? '',
      reference: 'too-big',
    })
    assert.equal(answer.status, 422, answer.text)
    assert.match(answer.text, /Sika refused this: The batch needs \d+ XOF.*available XOF balance is \d+/)
    assert.deepEqual(await xof(finance.merchantId), before)
    const list = await finance.browser.get('/dashboard/sandbox/payout-batches')
    assert.ok(!list.text.includes('too-big'), 'no batch made')
  })
})
