import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { startMtnMomoSimulator } from '../../src/simulators/mtn-momo/mtn-momo-simulator.ts'
import { startOrangeMoneySimulator } from '../../src/simulators/orange-money/orange-money-simulator.ts'
import { startPawapaySimulator } from '../../src/simulators/pawapay/pawapay-simulator.ts'
import { startWaveSimulator } from '../../src/simulators/wave/wave-simulator.ts'
import { chromiumMissing, launchChromium, seriousAxeViolations } from '../support/browser.ts'
import { type SignedInPlatformMember, signedInPlatformMember } from '../support/console.ts'
import { type LiveApp, startLiveApp } from '../support/live.ts'
import { describeEachStore } from '../support/stores.ts'

/**
 * CONTRACT.md, Platform console (operator accounts), in Chromium: the page shows the balances the
 * MTN MoMo, Wave and pawaPay simulators (real servers) report, "not offered" for Orange Money, and
 * the alert below a connection's lowBalanceAlert; axe-core finds nothing serious in English and
 * French.
 */

describeEachStore('console: operator accounts page', (store) => {
  let running: LiveApp
  let browser: Browser
  let analyst: SignedInPlatformMember
  before(async () => {
    running = await startLiveApp(store(), async (publicBaseUrl) => [
      {
        simulator: await startMtnMomoSimulator({ currencies: ['XOF'], availableBalance: '500000' }),
        channel: 'mtn-momo',
        countries: ['CI'],
        fields: { lowBalanceAlert: 600_000 },
      },
      {
        simulator: await startWaveSimulator({ openingBalance: '200000' }),
        channel: 'wave',
        countries: ['SN'],
        fields: { lowBalanceAlert: 100_000 },
      },
      { simulator: await startPawapaySimulator({}), channel: 'moov-money', countries: ['BJ'] },
      {
        simulator: await startOrangeMoneySimulator({
          webhookUrl: `${publicBaseUrl}/providers/orange-money/notifications`,
        }),
        channel: 'orange-money',
        countries: ['CI'],
      },
    ])
    analyst = await signedInPlatformMember(running.app, { role: 'analyst' })
    if (!chromiumMissing) browser = await launchChromium()
  })
  after(async () => {
    await browser?.close()
    await running?.close()
  })

  test('the balances each operator reports, "not offered" for Orange Money, and the alert', async () => {
    const answer = await analyst.browser.get('/console/operator-accounts')
    assert.equal(answer.status, 200)
    const section = (id: string) =>
      answer.text.split(`id="connection-${id}"`)[1]?.split('</section>')[0] ?? ''
    assert.match(section('mtn-momo-ci'), /collection<\/th><td class="num">XOF\u00a0500,000/)
    assert.match(section('mtn-momo-ci'), /disbursement<\/th><td class="num">XOF\u00a0500,000/)
    assert.match(section('mtn-momo-ci'), /data-low-balance/)
    assert.match(section('wave-sn'), /wallet<\/th><td class="num">XOF\u00a0200,000/)
    assert.doesNotMatch(section('wave-sn'), /data-low-balance/)
    assert.match(section('moov-money-bj'), /BEN\/XOF<\/th><td class="num">XOF\u00a01,000,000/)
    assert.match(section('orange-money-ci'), /Not offered by this operator\./)
    assert.match(answer.text, /role="alert">The balance of mtn-momo-ci is below its alert/)
    assert.doesNotMatch(answer.text, /The balance of wave-sn is below/)
    const metrics = await (await fetch(running.app.metricsUrl)).text()
    assert.match(metrics, /sika_operator_balance_low\{connection="mtn-momo-ci",currency="XOF"\} 1/)
  })

  test('in Chromium, in English and French: the alert shown, and axe-core clean', {
    skip: chromiumMissing,
  }, async () => {
    const failures: string[] = []
    for (const lang of ['en', 'fr'] as const) {
      const context = await browser.newContext({ locale: lang === 'fr' ? 'fr-FR' : 'en-US', bypassCSP: true })
      try {
        await context.addCookies([
          {
            name: 'sika_console_session',
            value: analyst.browser.cookies.get('sika_console_session') ?? '',
            url: `${running.app.url}/console`,
          },
          { name: 'sika_console_lang', value: lang, url: `${running.app.url}/console` },
        ])
        const page = await context.newPage()
        await page.goto(`${running.app.url}/console/operator-accounts`)
        assert.equal(await page.getAttribute('html', 'lang'), lang)
        assert.equal(
          await page.locator('[data-low-balance]').count(),
          2,
          'both MTN accounts are below the alert',
        )
        assert.equal(await page.locator('[role=alert]').count(), 1)
        failures.push(...(await axeViolations(page, lang)))
      } finally {
        await context.close()
      }
    }
    assert.deepEqual(failures, [])
  })

  const axeViolations = (page: Page, lang: string) =>
    seriousAxeViolations(page, `console ${store().name} ${lang} operator accounts`)
})
