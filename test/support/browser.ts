import assert from 'node:assert/strict'
import { existsSync, readFileSync } from 'node:fs'
import { type Browser, chromium, type Page } from 'playwright-core'

/** Debian's Chromium, installed by .ci/run; playwright-core never downloads a browser of its own. */
export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

export const chromiumMissing = existsSync(chromiumPath)
  ? false
  : process.env.CI === 'true'
    ? false // under CI the test runs and fails loudly: .ci/run must have installed it
    : `Chromium is not installed at ${chromiumPath} (apt-get install -y chromium)`

if (chromiumMissing) process.stderr.write(`\n!!! ${chromiumMissing}: browser tests are SKIPPED !!!\n\n`)

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    // Without these, Chromium reaches for Google's services at start, which this network refuses.
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  })
}

const axeSource = readFileSync('node_modules/axe-core/axe.min.js', 'utf8')

/**
 * axe-core on the page as it is now: one line printed (`axe <label> (<path>): <violations or
 * clean>`), and the serious and critical violations returned, each as `<label>: <rule> at <nodes>`.
 */
export async function seriousAxeViolations(page: Page, label: string): Promise<string[]> {
  await page.addScriptTag({ content: axeSource })
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<any> } }).axe
    const result = await axe.run(document, { resultTypes: ['violations'] })
    return (result.violations as any[]).map((violation) => ({
      id: violation.id as string,
      impact: violation.impact as string,
      targets: (violation.nodes as any[]).slice(0, 3).map((node) => node.target.join(' ')),
    }))
  })
  const ids = violations.map((violation) => `${violation.id}(${violation.impact})`).join(' ')
  process.stdout.write(`axe ${label} (${new URL(page.url()).pathname}): ${ids || 'clean'}\n`)
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${label}: ${violation.id} at ${violation.targets.join(', ')}`)
}

/** Where the focus is, and whether it can be seen: an outline of at least 2px. */
export async function focused(page: Page) {
  return page.evaluate(() => {
    const element = document.activeElement as HTMLElement
    const style = getComputedStyle(element)
    return {
      name: element.getAttribute('name') ?? '',
      href: element.getAttribute('href') ?? '',
      text: element.textContent?.trim() ?? '',
      visible: style.outlineStyle !== 'none' && Number.parseFloat(style.outlineWidth) >= 2,
    }
  })
}

/** Presses Tab until the focus is on what `wanted` picks, each stop's focus visible; 40 stops at most. */
export async function tabTo(page: Page, wanted: (focus: Awaited<ReturnType<typeof focused>>) => boolean) {
  for (let stop = 0; stop < 40; stop++) {
    await page.keyboard.press('Tab')
    const focus = await focused(page)
    assert.ok(focus.visible, `the focus on ${focus.name || focus.href || focus.text} is visible`)
    if (wanted(focus)) return focus
  }
  throw new Error('tabbing never reached the element')
}
