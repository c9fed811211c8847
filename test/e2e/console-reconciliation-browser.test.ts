import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { reconcileDay } from '../../src/app/reconciliation/run.ts'
import { startPawapaySimulator } from '../../src/simulators/pawapay/pawapay-simulator.ts'
import type { RunningSimulator } from '../../src/simulators/simulator.ts'
import type { TestApp } from '../support/app.ts'
import { chromiumMissing, launchChromium, seriousAxeViolations } from '../support/browser.ts'
import { openConsolePage, type SignedInPlatformMember, signedInPlatformMember } from '../support/console.ts'
import { nextTotpCode } from '../support/dashboard.ts'
import { type LiveApp, startLiveApp } from '../support/live.ts'
import { describeEachStore } from '../support/stores.ts'

const connection = 'moov-money-bj'
const today = () => new Date().toISOString().slice(0, 10)

/**
 * The console's reconciliation pages in Chromium: each passes axe-core in English and French; a
 * break is resolved with the keyboard alone; a large one waits for a second finance member, who
 * approves it with a fresh code in the browser.
 */
describeEachStore('console reconciliation in a real browser', (store) => {
  let simulator: RunningSimulator
  let running: LiveApp
  let app: TestApp
  let browser: Browser
  const contexts: BrowserContext[] = []
  const breaks = new Map<number, string>()

  before(async () => {
    if (chromiumMissing) return
    running = await startLiveApp(store(), async (publicBaseUrl) => {
      const notifications = `${publicBaseUrl}/providers/pawapay/notifications`
      simulator = await startPawapaySimulator({
        settleDelayMs: 50,
        statementDelayMs: 50,
        depositCallbackUrl: notifications,
        payoutCallbackUrl: notifications,
        refundCallbackUrl: notifications,
      })
      return [{ simulator, channel: 'moov-money', countries: ['BJ'] }]
    })
    app = running.app
    for (const amount of ['700', '800', '150000']) {
      const answer = await fetch(`${simulator.url}/_simulator/books/breaks`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ kind: 'unknown-line', amount, provider: 'MOOV_BEN' }),
      })
      assert.ok(answer.ok, await answer.text())
    }
    const report = await reconcileDay(app.context, connection, today(), 'test')
    assert.equal(report.status, 'completed', report.reason)
    for (const each of report.breaks) breaks.set(each.amount, each.id)
    browser = await launchChromium()
  })
  after(async () => {
    for (const context of contexts) await context.close().catch(() => {})
    await browser?.close()
    await running?.close()
  })

  /** A browser profile signed in as the member (its session cookie), in the language asked. */
  const openAs = (member: SignedInPlatformMember, lang: 'en' | 'fr' = 'en') =>
    openConsolePage(browser, app.url, member, lang, contexts)

  const axeFailures: string[] = []
  async function axeCheck(page: Page, name: string, lang: string) {
    axeFailures.push(...(await seriousAxeViolations(page, `reconciliation ${store().name} ${lang} ${name}`)))
  }

  test('every reconciliation page passes axe-core in English and in French', {
    skip: chromiumMissing,
    timeout: 240_000,
  }, async () => {
    for (const lang of ['en', 'fr'] as const) {
      const finance = await signedInPlatformMember(app, { role: 'finance' })
      const page = await openAs(finance, lang)
      await page.goto(`${app.url}/console/reconciliation`)
      assert.equal(await page.getAttribute('html', 'lang'), lang)
      await axeCheck(page, 'runs', lang)
      await Promise.all([
        page.waitForEvent('load'),
        page.click('form[action="/console/reconciliation/run"] button'),
      ])
      assert.ok(await page.isVisible('p.notice[role=status]'), 'the run by hand answered')
      await axeCheck(page, 'runs after a run by hand', lang)
      await page.goto(`${app.url}/console/reconciliation/breaks`)
      await axeCheck(page, 'break queue', lang)
      await page.goto(`${app.url}/console/reconciliation/breaks?kind=duplicate&age=30`)
      await axeCheck(page, 'break queue with nothing', lang)
      await page.goto(`${app.url}/console/reconciliation/breaks/${breaks.get(150000)}`)
      await axeCheck(page, 'large break', lang)
      await page.goto(`${app.url}/console/reconciliation/breaks/no-such-break`)
      await axeCheck(page, 'unknown break', lang)
    }
    assert.deepEqual(axeFailures, [])
  })

  /** Where the focus is, and whether it can be seen: an outline of at least 2px. */
  async function focused(page: Page) {
    return page.evaluate(() => {
      const element = document.activeElement as HTMLElement
      const style = getComputedStyle(element)
      return {
        name: element.getAttribute('name') ?? '',
        value: (element as HTMLInputElement).value ?? '',
        text: element.textContent?.trim() ?? '',
        visible: style.outlineStyle !== 'none' && Number.parseFloat(style.outlineWidth) >= 2,
      }
    })
  }

  async function tabTo(page: Page, wanted: (focus: Awaited<ReturnType<typeof focused>>) => boolean) {
    for (let stop = 0; stop < 60; stop++) {
      await page.keyboard.press('Tab')
      const focus = await focused(page)
      assert.ok(focus.visible, `the focus on ${focus.name || focus.text} is visible`)
      if (wanted(focus)) return focus
    }
    throw new Error('tabbing never reached the element')
  }

  /** Chooses "Ignore", types the reason and sends the form, with the keyboard alone. */
  async function decideByKeyboard(page: Page, reason: string) {
    await tabTo(page, (focus) => focus.name === 'decision')
    await page.keyboard.press('ArrowDown')
    assert.equal((await focused(page)).value, 'ignored')
    await tabTo(page, (focus) => focus.name === 'reason')
    await page.keyboard.type(reason)
    const submit = await tabTo(page, (focus) => focus.text === 'Record the decision')
    assert.ok(submit)
    await Promise.all([page.waitForEvent('load'), page.keyboard.press('Enter')])
  }

  test('with the keyboard alone, a finance member ignores a break with a reason', {
    skip: chromiumMissing,
    timeout: 120_000,
  }, async () => {
    const finance = await signedInPlatformMember(app, { role: 'finance' })
    const page = await openAs(finance)
    await page.goto(`${app.url}/console/reconciliation/breaks/${breaks.get(700)}`)
    await decideByKeyboard(page, 'A test payment of the operator')
    assert.match((await page.textContent('[role=status]')) ?? '', /The break is Ignored\./)
    const row = await app.db
      .selectFrom('reconciliation_breaks')
      .selectAll()
      .where('id', '=', breaks.get(700) ?? '')
      .executeTakeFirstOrThrow()
    assert.equal(row.state, 'ignored')
    assert.equal(row.reason, 'A test payment of the operator')
  })

  test('a large break waits for a second finance member, who approves it with a fresh code', {
    skip: chromiumMissing,
    timeout: 120_000,
  }, async () => {
    const first = await signedInPlatformMember(app, { role: 'finance' })
    const second = await signedInPlatformMember(app, { role: 'finance' })
    const path = `${app.url}/console/reconciliation/breaks/${breaks.get(150000)}`
    const firstPage = await openAs(first)
    await firstPage.goto(path)
    await decideByKeyboard(firstPage, 'Paid back by the operator')
    assert.match((await firstPage.textContent('[role=status]')) ?? '', /waits for a second finance member/)
    assert.ok(await firstPage.isVisible('#own-request'))
    assert.equal(await firstPage.locator('form[action$="/approve"]').count(), 0)

    const secondPage = await openAs(second)
    await secondPage.goto(path)
    await secondPage.fill('input[name=code]', '000000')
    await Promise.all([secondPage.waitForEvent('load'), secondPage.click('form[action$="/approve"] button')])
    assert.ok(await secondPage.isVisible('p.error[role=alert]'), 'a wrong code is refused')
    await secondPage.fill('input[name=code]', await nextTotpCode(second.totpSecret))
    await Promise.all([secondPage.waitForEvent('load'), secondPage.click('form[action$="/approve"] button')])
    assert.match((await secondPage.textContent('[role=status]')) ?? '', /The break is Ignored\./)
    const row = await app.db
      .selectFrom('reconciliation_breaks')
      .selectAll()
      .where('id', '=', breaks.get(150000) ?? '')
      .executeTakeFirstOrThrow()
    assert.equal(row.state, 'ignored', 'the first member’s decision, once approved')
    assert.equal(row.reason, 'Paid back by the operator')
  })
})
