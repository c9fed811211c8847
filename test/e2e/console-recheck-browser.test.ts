import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Browser, BrowserContext } from 'playwright-core'
import { startMtnMomoSimulator } from '../../src/simulators/mtn-momo/mtn-momo-simulator.ts'
import type { RunningSimulator } from '../../src/simulators/simulator.ts'
import { chromiumMissing, launchChromium, seriousAxeViolations } from '../support/browser.ts'
import { openConsolePage, type SignedInPlatformMember, signedInPlatformMember } from '../support/console.ts'
import { controlSimulator, type LiveApp, operatorReferenceOf, startLiveApp } from '../support/live.ts'
import { describeEachStore } from '../support/stores.ts'

/**
 * CONTRACT.md, Platform console (operations): support asks an operator for a pending operation's
 * status again from its page, in Chromium, through the status checks Sika's own polls and an
 * operator's notifications take (at most one per side a second); the answer moves the operation
 * and the platform audit log says who asked and what changed. A final or a sandbox operation says
 * there is nothing to ask; an analyst is offered nothing and a forged ask is a 403 that asks nothing.
 */
describeEachStore('console: asking an operator for an operation’s status again', (store) => {
  let running: LiveApp
  let mtn: RunningSimulator
  let browser: Browser
  let support: SignedInPlatformMember
  let analyst: SignedInPlatformMember
  const contexts: BrowserContext[] = []

  before(async () => {
    running = await startLiveApp(store(), async () => {
      mtn = await startMtnMomoSimulator({ currencies: ['XOF'] })
      return [{ simulator: mtn, channel: 'mtn-momo', countries: ['CI'] }]
    })
    support = await signedInPlatformMember(running.app, { role: 'support' })
    analyst = await signedInPlatformMember(running.app, { role: 'analyst' })
    if (!chromiumMissing) browser = await launchChromium()
  })
  after(async () => {
    for (const context of contexts) await context.close().catch(() => {})
    await browser?.close()
    await running?.close()
  })

  let references = 0
  /** A live collect whose customer never answers (the simulators' 104): pending until asked. */
  async function pendingCollect(): Promise<string> {
    const made = await running.live.post('/api/v1/collect', {
      amount: 1500,
      channel: 'mtn-momo',
      country: 'CI',
      customer: { phoneNumber: '+2250500000104' },
      merchantReference: `recheck-${++references}`,
      callbackUrl: 'https://merchant.example/callback',
    })
    assert.equal(made.status, 200, made.text)
    const token = made.body.data.collect.token as string
    assert.equal(made.body.data.collect.status, 'pending')
    return token
  }

  const statusOf = async (token: string) =>
    (await running.live.get(`/api/v1/collect/${token}`)).body.data.collect.status as string
  const asksOf = (token: string) =>
    running.app.db
      .selectFrom('platform_audit_log')
      .selectAll()
      .where('action', '=', 'operation.status_asked')
      .where('target', '=', token)
      .execute()
  const statusRequests = (reference: string) =>
    mtn.requests.filter((request) => request.method === 'GET' && request.url.includes(reference))

  const openAs = (member: SignedInPlatformMember, lang: 'en' | 'fr') =>
    openConsolePage(browser, running.app.url, member, lang, contexts)

  test('support asks again with the page’s button, in English and French: the answer moves the operation and is audited', {
    skip: chromiumMissing,
    timeout: 180_000,
  }, async () => {
    const failures: string[] = []
    const expected = {
      en: /The operator was asked again: the operation was pending and is now succeeded\./,
      fr: /L’opérateur a été interrogé de nouveau : l’opération est passée de « En attente » à « Réussie »\./,
    }
    for (const lang of ['en', 'fr'] as const) {
      const token = await pendingCollect()
      const page = await openAs(support, lang)
      assert.equal((await page.goto(`${running.app.url}/console/operations/${token}`))?.status(), 200)
      await page.waitForSelector(`form[action="/console/operations/${token}/recheck"] button`)
      failures.push(...(await seriousAxeViolations(page, `console recheck ${store().name} ${lang} pending`)))
      const reference = await operatorReferenceOf(running.app, token)
      await controlSimulator(mtn, `transactions/${reference}/status`, {
        status: 'SUCCESSFUL',
        callback: false,
      })
      assert.equal(await statusOf(token), 'pending', 'no callback: Sika does not know yet')
      await Promise.all([
        page.waitForEvent('load'),
        page.click(`form[action="/console/operations/${token}/recheck"] button`),
      ])
      const notice = (await page.textContent('main p.notice')) ?? ''
      assert.match(notice, expected[lang])
      assert.equal(await statusOf(token), 'succeeded')
      assert.equal(await page.locator('form[action$="/recheck"]').count(), 0, 'final now: no button')
      failures.push(...(await seriousAxeViolations(page, `console recheck ${store().name} ${lang} asked`)))
      const [row, ...more] = await asksOf(token)
      assert.deepEqual(more, [])
      assert.equal(row?.actor_label, support.email)
      assert.equal(JSON.parse(row?.before_json ?? '').status, 'pending')
      assert.equal(JSON.parse(row?.after_json ?? '').status, 'succeeded')
      assert.equal(row?.address, '127.0.0.1')
    }
    assert.deepEqual(failures, [])
  })

  test('asks at once keep to one status check per side a second', { timeout: 60_000 }, async () => {
    const token = await pendingCollect()
    const reference = await operatorReferenceOf(running.app, token)
    const page = await support.browser.get(`/console/operations/${token}`)
    assert.match(page.text, /action="\/console\/operations\/[^"]+\/recheck"/)
    const before = statusRequests(reference).length
    const answers = await Promise.all(
      [1, 2, 3, 4].map(() =>
        support.browser.post(`/console/operations/${token}/recheck`, { csrf: support.csrf }),
      ),
    )
    for (const answer of answers) {
      assert.equal(answer.status, 200, answer.text)
      assert.match(answer.text, /the operation is still pending/)
    }
    const asked = statusRequests(reference).slice(before)
    assert.ok(asked.length >= 1 && asked.length <= 2, `${asked.length} status checks for four asks`)
    // The turns are a second apart when taken; a request reaches the operator a few milliseconds
    // after its turn (the first may fetch an access token on the way).
    for (let index = 1; index < asked.length; index++)
      assert.ok(
        (asked[index]?.receivedAtMs ?? 0) - (asked[index - 1]?.receivedAtMs ?? 0) >= 900,
        'a second between two checks of the side',
      )
  })

  test('a final or a sandbox operation says there is nothing to ask; an analyst’s forged ask is a 403', {
    timeout: 60_000,
  }, async () => {
    const token = await pendingCollect()
    const reference = await operatorReferenceOf(running.app, token)
    const analystPage = await analyst.browser.get(`/console/operations/${token}`)
    assert.equal(analystPage.status, 200)
    assert.doesNotMatch(analystPage.text, /\/recheck"/, 'an analyst is offered no ask')
    await controlSimulator(mtn, `transactions/${reference}/status`, { status: 'SUCCESSFUL', callback: false })
    const before = statusRequests(reference).length
    const forged = await analyst.browser.post(`/console/operations/${token}/recheck`, { csrf: analyst.csrf })
    assert.equal(forged.status, 403)
    const noToken = await support.browser.post(`/console/operations/${token}/recheck`, {})
    assert.equal(noToken.status, 403, 'support’s form without its CSRF token')
    assert.equal(statusRequests(reference).length, before, 'the operator was not asked')
    assert.equal(await statusOf(token), 'pending')
    assert.deepEqual(await asksOf(token), [])

    await support.browser.post(`/console/operations/${token}/recheck`, { csrf: support.csrf })
    assert.equal(await statusOf(token), 'succeeded')
    const final = await support.browser.post(`/console/operations/${token}/recheck`, { csrf: support.csrf })
    assert.equal(final.status, 200, final.text)
    assert.match(
      final.text,
      /<p class="error" role="alert">This operation is final: there is nothing to ask its operator, and nothing was asked\./,
      'said as an error, not as something done',
    )
    assert.equal((await asksOf(token)).length, 1, 'the ask that asked nothing is not a change')

    const merchant = await running.app.createMerchant('Sandbox Shop')
    const sandbox = await running.app.client(merchant.sandbox).post('/api/v1/collect', {
      amount: 1500,
      channel: 'mtn-momo',
      country: 'CI',
      customer: { phoneNumber: '+2250500000104' },
      merchantReference: 'sandbox-recheck',
      callbackUrl: 'https://merchant.example/callback',
    })
    const sandboxToken = sandbox.body.data.collect.token as string
    const sandboxPage = await support.browser.get(`/console/operations/${sandboxToken}`)
    assert.match(sandboxPage.text, /A sandbox operation has no operator to ask/)
    assert.doesNotMatch(sandboxPage.text, /\/recheck"/)
    const asked = await support.browser.post(`/console/operations/${sandboxToken}/recheck`, {
      csrf: support.csrf,
    })
    assert.equal(asked.status, 200)
    assert.match(asked.text, /A sandbox operation has no operator to ask/)
    assert.equal(
      (await support.browser.post('/console/operations/op_none/recheck', { csrf: support.csrf })).status,
      404,
    )
  })
})
