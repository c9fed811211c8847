import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { createPaymentLink } from '../../src/app/payment-links/index.ts'
import { countryName } from '../../src/http/dashboard/format.ts'
import { startApp, type TestApp } from '../support/app.ts'
import { csrfIn, type SignedInMember, signedInMember } from '../support/dashboard.ts'
import { payOnLinkPage } from '../support/payment-links.ts'
import { describeEachStore } from '../support/stores.ts'

describeEachStore('dashboard: payment link pages', (store) => {
  let app: TestApp
  before(async () => {
    app = await startApp(store())
  })
  after(() => app?.close())

  const base = '/dashboard/sandbox/payment-links'

  async function create(member: SignedInMember, fields: Record<string, string>) {
    const page = await member.browser.get(base)
    assert.equal(page.status, 200)
    return member.browser.post(base, { csrf: csrfIn(page.text, base), country: 'CI', ...fields })
  }

  test('a finance member creates a fixed link: its page shows the QR code, its address and its payments; closing it is audited', async () => {
    const finance = await signedInMember(app, { role: 'finance' })
    const created = await create(finance, {
      description: 'Robe wax <b>taille M</b>',
      amountKind: 'fixed',
      amount: '15000',
      'channel-orange-money': 'on',
      reference: 'robe-m',
    })
    assert.equal(created.status, 303, created.text)
    const path = created.location ?? ''
    const token = /payment-links\/([^/?]+)\?done=created$/.exec(path)?.[1] ?? ''
    assert.ok(token, path)
    const page = await finance.browser.get(path)
    assert.match(page.text, /The link is created/)
    assert.match(
      page.text,
      /<img class="qr" src="data:image\/svg\+xml;base64,[A-Za-z0-9+/=]+" alt="QR code of the payment link for Robe wax &lt;b>taille M&lt;\/b>"/,
    )
    assert.ok(page.text.includes(`/pay/${token}`), 'the address of its page')
    assert.match(page.text, /XOF\u00a015,000/)
    const paid = await payOnLinkPage(app.url, token, { channel: 'orange-money', phoneNumber: '0700000123' })
    assert.equal(paid.status, 303, paid.text)
    const after = await finance.browser.get(`${base}/${token}`)
    assert.match(after.text, /robe-m-1/, 'the payment, by its reference')
    assert.match(after.text, /Completed/, 'a single-use link with a succeeded payment')
    const list = await finance.browser.get(base)
    assert.match(list.text, /Robe wax &lt;b>taille M&lt;\/b>/)

    const reusable = await create(finance, {
      description: 'Dons',
      amountKind: 'range',
      min: '500',
      max: '50000',
      reusable: 'on',
    })
    assert.equal(reusable.status, 303, reusable.text)
    const open = await finance.browser.get(reusable.location ?? '')
    const closePath = /action="([^"]+\/close)"/.exec(open.text)?.[1] ?? ''
    assert.ok(closePath, 'an active link offers close')
    const closed = await finance.browser.post(closePath, { csrf: csrfIn(open.text, closePath) })
    assert.equal(closed.status, 303)
    const shown = await finance.browser.get(closed.location ?? '')
    assert.match(shown.text, /The link is closed/)
    assert.ok(!shown.text.includes(closePath), 'a closed link offers no close')
    const rows = await app.db
      .selectFrom('audit_log')
      .select(['action', 'actor_label'])
      .where('merchant_id', '=', finance.merchantId)
      .where('action', 'like', 'payment_link.%')
      .orderBy('at_us')
      .execute()
    assert.deepEqual(
      rows.map((row) => row.action),
      ['payment_link.created', 'payment_link.created', 'payment_link.closed'],
    )
  })

  test('amounts out of order are refused with what to write, and the form keeps what was typed', async () => {
    const finance = await signedInMember(app, { role: 'admin' })
    const refused = await create(finance, {
      description: 'Range',
      amountKind: 'range',
      min: '900',
      max: '100',
    })
    assert.equal(refused.status, 422)
    assert.match(refused.text, /the smallest below the largest/)
    assert.match(refused.text, /name="description"[^>]*value="Range"/)
    const empty = await create(finance, { description: ' ', amountKind: 'fixed', amount: '100' })
    assert.equal(empty.status, 422)
    assert.match(empty.text, /Write a description of 1 to 200 characters/)
    // What only the API's use case knows: a channel the country does not serve.
    const api = await create(finance, {
      description: 'Nope',
      amountKind: 'fixed',
      amount: '100',
      'channel-nope': 'on',
    })
    assert.equal(api.status, 422, api.text)
    assert.match(api.text, /nope is not offered in Côte d’Ivoire\. Choose among its channels: /)
  })

  test('the form: country names, the chosen country’s channels and currency, a mismatched pair refused; the pay page’s phone hint is the link country’s', async () => {
    const finance = await signedInMember(app, { role: 'finance' })
    const first = await finance.browser.get(base)
    assert.match(
      first.text,
      /<option value="CI" selected>Côte d’Ivoire<\/option>/,
      'a name, and the country with most channels',
    )
    assert.match(first.text, /<option value="SN">Senegal<\/option>/)
    assert.match(first.text, /Amount \(XOF\)/)
    const senegal = await finance.browser.get(`${base}?country=SN`)
    assert.match(senegal.text, /<option value="SN" selected>Senegal<\/option>/)
    assert.match(senegal.text, /<input type="hidden" name="country" value="SN"/)
    for (const channel of ['orange-money', 'wave', 'free-money'])
      assert.ok(senegal.text.includes(`name="channel-${channel}"`), `${channel} is offered in Senegal`)
    assert.ok(!senegal.text.includes('name="channel-mtn-momo"'), 'MTN is not offered in Senegal')
    assert.equal(countryName('SN', 'fr'), 'Sénégal', 'in the page’s language')
    const refused = await finance.browser.post(base, {
      csrf: csrfIn(senegal.text, base),
      country: 'SN',
      description: 'Mismatch',
      amountKind: 'fixed',
      amount: '1000',
      'channel-mtn-momo': 'on',
    })
    assert.equal(refused.status, 422)
    assert.match(
      refused.text,
      /MTN Mobile Money is not offered in Senegal\. Choose among its channels: Free Money, Orange Money, Wave\./,
    )
    assert.match(refused.text, /<option value="SN" selected>Senegal/, 'the form stays on Senegal')

    const principal = { merchantId: finance.merchantId, merchantName: '', mode: 'sandbox' as const }
    const { link } = await createPaymentLink(app.context, principal, {
      merchantReference: 'hint-sn',
      description: 'Hint',
      country: 'SN',
      amount: 1000,
    })
    const pay = await fetch(`${app.url}/pay/${link.token}`)
    const payText = await pay.text()
    assert.match(payText, /such as 70 123 45 67\./, 'a Senegalese number')
    assert.ok(!payText.includes('07 00 00 00 00'), 'not an Ivorian one')
  })

  test('a viewer reads the list and a link but is offered neither create nor close, and is refused both', async () => {
    const finance = await signedInMember(app, { role: 'finance' })
    const created = await create(finance, { description: 'Viewer', amountKind: 'fixed', amount: '1000' })
    const viewer = await signedInMember(app, { role: 'viewer', merchantId: finance.merchantId })
    const list = await viewer.browser.get(base)
    assert.equal(list.status, 200)
    assert.ok(!list.text.includes(`action="${base}"`))
    const page = await viewer.browser.get(created.location ?? '')
    assert.equal(page.status, 200)
    assert.ok(!page.text.includes('/close"'))
    const token = /payment-links\/([^/?]+)/.exec(created.location ?? '')?.[1]
    assert.equal((await viewer.browser.post(`${base}/${token}/close`, { csrf: viewer.csrf })).status, 403)
    assert.equal((await viewer.browser.post(base, { csrf: viewer.csrf, description: 'x' })).status, 403)
    assert.equal((await viewer.browser.get(`/dashboard/live/payment-links/${token}`)).status, 404)
  })

  test('the list goes a page of 50 at a time, with links to the next and the first page', async () => {
    const owner = await signedInMember(app, { role: 'owner' })
    const principal = { merchantId: owner.merchantId, merchantName: '', mode: 'sandbox' as const }
    for (let index = 0; index < 51; index += 1)
      await createPaymentLink(app.context, principal, {
        merchantReference: `paged-${index}`,
        description: `Paged ${index}`,
        country: 'CI',
        amount: 1000,
      })
    const first = await owner.browser.get(base)
    assert.equal(
      (first.text.match(/<a href="\/dashboard\/sandbox\/payment-links\/[^"]+">Paged/g) ?? []).length,
      50,
    )
    assert.match(first.text, /href="\/dashboard\/sandbox\/payment-links\?page=2">Next page/)
    const second = await owner.browser.get(`${base}?page=2`)
    assert.equal((second.text.match(/>Paged \d+</g) ?? []).length, 1)
    assert.match(second.text, /href="\/dashboard\/sandbox\/payment-links">First page/)
    assert.ok(!second.text.includes('?page=3'))
  })
})
