import { existsSync } from 'node:fs'
import { type Browser, chromium } from 'playwright-core'

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
