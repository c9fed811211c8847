import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { setFeeRow } from '../../src/app/catalogue.ts'
import { type ApiResponse, startApp, type TestApp } from '../support/app.ts'
import { signedInPlatformMember } from '../support/console.ts'
import { csrfIn, signedInMember } from '../support/dashboard.ts'
import { describeEachStore } from '../support/stores.ts'

/**
 * CONTRACT.md, Platform console, merchants: every role finds a merchant by name, id or a member's
 * email and reads its page; risk pauses and resumes its payouts and sets its limits there, each
 * change in the merchant's audit and the platform's, on every instance within 1 s; an analyst
 * sees no action and a forged one changes nothing.
 */
describeEachStore('console: merchants, and risk pausing payouts', (target) => {
  let first: TestApp
  let second: TestApp
  before(async () => {
    first = await startApp(target())
    second = await startApp(target())
  })
  after(async () => {
    await first?.close()
    await second?.close()
  })

  let references = 0
  const side = { channel: 'orange-money', country: 'CI' }
  const operation = (amount = 1000) => ({
    amount,
    ...side,
    customer: { phoneNumber: '+2250700000123' },
    merchantReference: `console-${++references}`,
    callbackUrl: 'http://127.0.0.1:9/callbacks',
  })

  async function untilStatus(send: () => Promise<ApiResponse>, status: number): Promise<number> {
    const started = performance.now()
    for (;;) {
      const response = await send()
      if (response.status === status) return performance.now() - started
      assert.ok(performance.now() - started < 3000, `still ${response.status} after 3 s: ${response.text}`)
      await new Promise((resolve) => setTimeout(resolve, 25))
    }
  }

  const controlsOf = async (merchantId: string) => ({
    merchant: await first.db
      .selectFrom('merchants')
      .select(['status', 'payouts_paused_at_us'])
      .where('id', '=', merchantId)
      .executeTakeFirst(),
    limits: (
      await first.db.selectFrom('merchant_limits').selectAll().where('merchant_id', '=', merchantId).execute()
    ).length,
    audit: (
      await first.db.selectFrom('audit_log').select('id').where('merchant_id', '=', merchantId).execute()
    ).length,
    platformAudit: (
      await first.db
        .selectFrom('platform_audit_log')
        .select('id')
        .where('action', 'like', 'merchant.%')
        .execute()
    ).length,
  })

  test('risk pauses payouts in the console: the other instance refuses them within 1 s, collects go on, resumed they pass', {
    timeout: 120_000,
  }, async () => {
    const merchant = await first.createMerchant('Kora Paused Traders')
    const risk = await signedInPlatformMember(first, { role: 'risk' })
    const onSecond = second.client(merchant.sandbox)
    assert.equal((await onSecond.post('/api/v1/disbursement', operation())).status, 200)

    const page = await risk.browser.get(`/console/merchants/${merchant.id}`)
    assert.equal(page.status, 200)
    assert.match(page.text, /Kora Paused Traders/)
    const pausePath = `/console/merchants/${merchant.id}/pause`
    assert.match(page.text, new RegExp(`action="${pausePath}"`))
    const paused = await risk.browser.post(pausePath, {
      csrf: csrfIn(page.text, pausePath),
      reason: 'a pattern',
    })
    assert.equal(paused.status, 200, paused.text)
    assert.match(paused.text, /Payouts are paused/)
    const pausedMs = await untilStatus(() => onSecond.post('/api/v1/disbursement', operation()), 403)
    assert.ok(pausedMs < 1000, `the other instance paid out for ${Math.round(pausedMs)} ms after the pause`)
    const refused = await onSecond.post('/api/v1/disbursement', operation())
    assert.equal(refused.body.code, 'payouts_paused')
    assert.match(refused.body.message, /a pattern/)
    const collected = await onSecond.post('/api/v1/collect', operation())
    assert.equal(collected.status, 200, collected.text)

    const resumePath = `/console/merchants/${merchant.id}/resume`
    assert.match(paused.text, new RegExp(`action="${resumePath}"`))
    const resumed = await risk.browser.post(resumePath, { csrf: csrfIn(paused.text, resumePath) })
    assert.equal(resumed.status, 200, resumed.text)
    const resumedMs = await untilStatus(() => onSecond.post('/api/v1/disbursement', operation()), 200)
    assert.ok(resumedMs < 1000, `the other instance refused for ${Math.round(resumedMs)} ms after resuming`)

    const limited = await risk.browser.post(`/console/merchants/${merchant.id}/limits`, {
      csrf: risk.csrf,
      mode: 'sandbox',
      currency: 'XOF',
      maxAmount: '5000',
      dailyPayoutLimit: '',
    })
    assert.equal(limited.status, 200, limited.text)
    await untilStatus(() => onSecond.post('/api/v1/disbursement', operation(6000)), 422)
    const wrong = await risk.browser.post(`/console/merchants/${merchant.id}/limits`, {
      csrf: risk.csrf,
      mode: 'sandbox',
      currency: 'XOF',
      maxAmount: '-3',
      dailyPayoutLimit: '',
    })
    assert.equal(wrong.status, 422)

    const audit = await first.db
      .selectFrom('audit_log')
      .select(['action', 'actor_label'])
      .where('merchant_id', '=', merchant.id)
      .orderBy('at_us')
      .execute()
    assert.deepEqual(
      audit.map((row) => [row.action, row.actor_label]),
      [
        ['payouts.paused', risk.email],
        ['payouts.resumed', risk.email],
        ['limits.set', risk.email],
      ],
    )
    const platform = await first.db
      .selectFrom('platform_audit_log')
      .select('action')
      .where('actor_label', '=', risk.email)
      .where('action', 'like', 'merchant.%')
      .orderBy('at_us')
      .execute()
    assert.deepEqual(
      platform.map((row) => row.action),
      ['merchant.payouts_paused', 'merchant.payouts_resumed', 'merchant.limits_set'],
    )
    const shown = await risk.browser.get(`/console/merchants/${merchant.id}`)
    assert.match(shown.text, /<code>payouts\.paused<\/code>/, 'the page shows its audit')
  })

  test('an analyst sees no action, and each forged POST is a 403 that changes nothing', {
    timeout: 90_000,
  }, async () => {
    const merchant = await first.createMerchant('Analysed')
    const analyst = await signedInPlatformMember(first, { role: 'analyst' })
    const page = await analyst.browser.get(`/console/merchants/${merchant.id}`)
    assert.equal(page.status, 200)
    assert.doesNotMatch(page.text, /method="post" action="\/console\/merchants\//)
    const before = await controlsOf(merchant.id)
    for (const [action, form] of [
      ['pause', { reason: 'mole' }],
      ['resume', {}],
      ['suspend', {}],
      ['limits', { mode: 'live', currency: 'XOF', maxAmount: '1', dailyPayoutLimit: '1' }],
    ] as const) {
      const answer = await analyst.browser.post(`/console/merchants/${merchant.id}/${action}`, {
        ...form,
        csrf: analyst.csrf,
      })
      assert.equal(answer.status, 403, action)
    }
    const risk = await signedInPlatformMember(first, { role: 'risk' })
    const forged = await risk.browser.post(`/console/merchants/${merchant.id}/pause`, {
      csrf: 'forged',
      reason: 'x',
    })
    assert.equal(forged.status, 403, 'a form without the session’s CSRF token')
    assert.deepEqual(await controlsOf(merchant.id), before)
  })

  test('merchants are found by name, id and a member’s email, and filtered on status', {
    timeout: 90_000,
  }, async () => {
    const owner = await signedInMember(first, { role: 'owner' })
    const named = await first.createMerchant('Zebulon Unique Shop')
    const analyst = await signedInPlatformMember(first, { role: 'analyst' })
    const byName = await analyst.browser.get('/console/merchants?q=zebulon+unique')
    assert.match(byName.text, new RegExp(`/console/merchants/${named.id}"`))
    const byId = await analyst.browser.get(`/console/merchants?q=${named.id}`)
    assert.match(byId.text, /Zebulon Unique Shop/)
    const byEmail = await analyst.browser.get(`/console/merchants?q=${encodeURIComponent(owner.email)}`)
    assert.match(byEmail.text, new RegExp(`/console/merchants/${owner.merchantId}"`))
    assert.doesNotMatch(byEmail.text, /Zebulon/)

    const risk = await signedInPlatformMember(first, { role: 'risk' })
    await risk.browser.post(`/console/merchants/${named.id}/pause`, { csrf: risk.csrf, reason: 'checks' })
    const pausedOnly = await analyst.browser.get('/console/merchants?status=payouts_paused&q=zebulon')
    assert.match(pausedOnly.text, /Zebulon Unique Shop/)
    const suspendedOnly = await analyst.browser.get('/console/merchants?status=suspended&q=zebulon')
    assert.doesNotMatch(suspendedOnly.text, /Zebulon Unique Shop/)
    const row = {
      merchantId: owner.merchantId,
      kind: 'collect',
      channel: 'wave',
      country: 'SN',
      percentageMilli: 1_750,
      additionalFeeMinor: 25,
      supportedByAccount: true,
    }
    assert.equal(await setFeeRow(first.context, row, { kind: 'cli' }), true)
    const member = await analyst.browser.get(`/console/merchants/${owner.merchantId}`)
    assert.ok(member.text.includes(owner.email), 'its members are listed')
    assert.match(member.text, /1\.75 %/, 'its fees are listed')
    assert.equal((await analyst.browser.get('/console/merchants/mer_nobody')).status, 404)
  })
})
