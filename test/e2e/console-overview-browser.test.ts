import assert from 'node:assert/strict'
import { mkdirSync } from 'node:fs'
import { after, before, test } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { rollUpOperatorHours } from '../../src/app/console/operator-hours-roll-up.ts'
import { startMtnMomoSimulator } from '../../src/simulators/mtn-momo/mtn-momo-simulator.ts'
import { startWaveSimulator } from '../../src/simulators/wave/wave-simulator.ts'
import { chromiumMissing, launchChromium, seriousAxeViolations } from '../support/browser.ts'
import { type SignedInPlatformMember, signedInPlatformMember } from '../support/console.ts'
import { type LiveApp, settledRecord, startLiveApp } from '../support/live.ts'
import { describeEachStore } from '../support/stores.ts'

/**
 * CONTRACT.md, Platform console (overview), in Chromium: live collects made through the MTN MoMo
 * simulator (a real server) appear in the overview's table for mtn-momo in Côte d'Ivoire, with the
 * chart of its 30 days (an SVG with its title) and the same figures in a table; the float of each
 * operator account with the low-balance alert; axe-core finds nothing serious in English and
 * French, and every link is reached with the keyboard. With SIKA_SCREENSHOTS=1 the English page is
 * saved to docs/images/console-overview.png.
 */

describeEachStore('console: overview page', (store) => {
  let running: LiveApp
  let browser: Browser
  let analyst: SignedInPlatformMember
  before(async () => {
    running = await startLiveApp(store(), async () => [
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
      },
    ])
    analyst = await signedInPlatformMember(running.app, { role: 'analyst' })
    if (!chromiumMissing) browser = await launchChromium()
  })
  after(async () => {
    await browser?.close()
    await running?.close()
  })

  async function collect(phoneNumber: string, reference: string): Promise<string> {
    const answer = await running.live.post('/api/v1/collect', {
      amount: 5000,
      channel: 'mtn-momo',
      country: 'CI',
      customer: { phoneNumber },
      merchantReference: reference,
      callbackUrl: 'https://merchant.example/callback',
    })
    assert.equal(answer.status, 200, answer.text)
    return answer.body.data.collect.token
  }

  test('the live collects in the connection’s table, its chart and its days, and the float', async () => {
    const tokens = [await collect('0700000001', 'o-1'), await collect('0700000002', 'o-2')]
    tokens.push(await collect('0700000101', 'o-3'))
    const statuses = []
    for (const token of tokens) statuses.push((await settledRecord(running, 'collect', token)).status)
    assert.deepEqual(statuses, ['succeeded', 'succeeded', 'failed'])
    // The workers roll the hours up every minute; the test does it now rather than wait.
    await rollUpOperatorHours(running.app.context)

    const answer = await analyst.browser.get('/console')
    assert.equal(answer.status, 200)
    const mtn = answer.text.split('data-connection="mtn-momo/CI"')[1]?.split('</details>')[0] ?? ''
    assert.match(mtn, /Last 24 hours<\/th><td class="num">3<\/td><td class="num">66.7%<\/td>/)
    assert.match(mtn, /Last 30 days<\/th><td class="num">3<\/td><td class="num">66.7%<\/td>/)
    assert.match(
      mtn,
      /<svg[^>]*role="img"[^>]*aria-labelledby="chart-mtn-momo-CI-title chart-mtn-momo-CI-desc"/,
    )
    assert.match(mtn, /<title id="chart-mtn-momo-CI-title">mtn-momo, Côte d’Ivoire: daily volume/)
    assert.doesNotMatch(mtn, /NaN|Infinity/)
    const today = new Date().toISOString().slice(0, 10)
    assert.match(mtn, new RegExp(`${today}</th><td class="num">3</td><td class="num">66.7%</td>`))
    assert.match(answer.text, /data-connection="wave\/SN"/)
    assert.match(answer.text, /role="alert">The balance of mtn-momo-ci is below its alert/)
    assert.match(answer.text, /Float of wave-sn/)
    assert.match(
      answer.text,
      /<h2 id="reconciliation-overview">Reconciliation<\/h2>/,
      'the open breaks and the last runs',
    )
  })

  test('in Chromium, in English and French: the chart, axe-core clean, reached with the keyboard', {
    skip: chromiumMissing,
  }, async () => {
    const failures: string[] = []
    for (const lang of ['en', 'fr'] as const) {
      const context = await browser.newContext({
        locale: lang === 'fr' ? 'fr-FR' : 'en-US',
        viewport: { width: 1280, height: 900 },
        bypassCSP: true,
      })
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
        page.on('pageerror', (error) => assert.fail(`a script ran: ${error.message}`))
        await page.goto(`${running.app.url}/console`)
        assert.equal(await page.getAttribute('html', 'lang'), lang)
        const chart = page.locator('svg#chart-mtn-momo-CI')
        assert.equal(await chart.getAttribute('role'), 'img')
        assert.match((await chart.locator('title').textContent()) ?? '', /mtn-momo/)
        assert.ok((await chart.locator('rect').count()) === 30, 'a bar per day')
        if (lang === 'en' && process.env.SIKA_SCREENSHOTS === '1' && store().name === 'sqlite') {
          mkdirSync('docs/images', { recursive: true })
          await page.screenshot({ path: 'docs/images/console-overview.png', fullPage: true })
        }
        await keyboardReachesEveryLink(page)
        failures.push(...(await axeViolations(page, lang)))
      } finally {
        await context.close()
      }
    }
    assert.deepEqual(failures, [])
  })

  /** Tab goes through the page's links and controls, including the days' disclosure, in order. */
  async function keyboardReachesEveryLink(page: Page) {
    const focusable = await page.locator('a[href], button, summary, input:not([type=hidden])').count()
    const reached = new Set<string>()
    for (let step = 0; step < focusable + 5; step++) {
      await page.keyboard.press('Tab')
      reached.add(
        await page.evaluate(() => {
          const active = document.activeElement
          return active
            ? `${active.tagName}:${active.textContent?.trim()}:${active.getAttribute('href')}`
            : ''
        }),
      )
    }
    assert.ok(
      [...reached].some((entry) => entry.startsWith('SUMMARY:')),
      'the daily figures open by keyboard',
    )
    assert.ok(
      [...reached].some((entry) => entry.endsWith(':/console/operator-accounts')),
      'the operator accounts link is reached',
    )
  }

  const axeViolations = (page: Page, lang: string) =>
    seriousAxeViolations(page, `console ${store().name} ${lang} overview`)
})
