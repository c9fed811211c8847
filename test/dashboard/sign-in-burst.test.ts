import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { IssuedMerchant, KeyPair } from '../../src/app/merchants.ts'
import { startApp } from '../support/app.ts'
import { csrfIn } from '../support/dashboard.ts'
import { type ServiceProcess, startService } from '../support/process.ts'
import { describeEachStore } from '../support/stores.ts'

/**
 * Issue 50, finding 3: 200 sign-ins posted at once from one address were each checked with
 * argon2id, in libuv's thread pool, the pool SQLite's WAL syncs share: another merchant's collects
 * went from p99 16 ms to 2,907 ms on SQLite, from p50 9 ms to 838 ms on PostgreSQL, and a plain
 * GET /balance to p99 2,745 ms. Sign-ins are now counted per address before any password is
 * checked, and one instance checks few at once: the burst gets at most an address's share of
 * checks (its other answers are the lock's or "try again later"), and the other merchant's
 * median stays near what it is during as many requests that check no password.
 *
 * The service runs as `sika serve` in a process of its own, so its thread pool is the one
 * measured; the burst and the other merchant's requests come from this process.
 */

const burst = 200
/** An address's sign-ins in a 15-minute window, whichever emails it tries (app/mechanisms/secret-attempts.ts). */
const addressShare = 20
/**
 * The bound on the other merchant's median during the sign-ins: 250 ms, or four times its median
 * during as many requests for the sign-in page, measured in the same run (the machine's load
 * weighs on both). Before sign-ins were bounded it was one to two seconds. Its p99 is printed,
 * not bounded: one of its requests may land behind the 200 answers on the event loop, as it would
 * behind any 200 requests at once, and that is the edge's admission to share.
 */
const medianBoundMs = (pagesMedianMs: number) => Math.max(250, 4 * pagesMedianMs)

const percentile = (sorted: readonly number[], fraction: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? Number.NaN

function summary(answers: readonly { ms: number }[]) {
  const sorted = answers.map((answer) => answer.ms).sort((a, b) => a - b)
  return {
    count: sorted.length,
    p50: Math.round(percentile(sorted, 0.5)),
    p99: Math.round(percentile(sorted, 0.99)),
    max: Math.round(sorted.at(-1) ?? Number.NaN),
  }
}

function tally(statuses: readonly number[]): string {
  const counts = new Map<number, number>()
  for (const status of statuses) counts.set(status, (counts.get(status) ?? 0) + 1)
  return [...counts]
    .sort(([a], [b]) => a - b)
    .map(([status, count]) => `${count} × ${status}`)
    .join(', ')
}

const headersOf = (keys: KeyPair) => ({
  'api-key': keys.apiKey,
  'secret-key': keys.secretKey,
  'content-type': 'application/json',
})

describeEachStore('a burst of sign-ins from one address', (store) => {
  let service: ServiceProcess
  let other: IssuedMerchant
  let references = 0
  const nextReference = () => {
    references += 1
    return `burst-${references}`
  }

  before(async () => {
    const seeding = await startApp(store())
    try {
      other = await seeding.createMerchant('Collects while others sign in')
    } finally {
      await seeding.close()
    }
    service = await startService({ DATABASE_URL: store().databaseUrl, RATE_LIMIT_PER_SECOND: '0' })
  })
  after(() => service?.kill('SIGKILL'))

  interface Answer {
    status: number
    ms: number
  }

  async function timed(path: string, init: RequestInit): Promise<Answer> {
    const started = performance.now()
    const response = await fetch(`${service.url}${path}`, init)
    await response.text()
    return { status: response.status, ms: performance.now() - started }
  }

  const collectMs = () =>
    timed('/api/v1/collect', {
      method: 'POST',
      headers: headersOf(other.sandbox),
      body: JSON.stringify({
        amount: 5000,
        channel: 'orange-money',
        country: 'CI',
        customer: { phoneNumber: '+2250700000123' },
        merchantReference: nextReference(),
        callbackUrl: 'http://127.0.0.1:9/callback',
      }),
    })
  const balanceMs = () => timed('/api/v1/balance', { headers: headersOf(other.sandbox) })

  /**
   * A collect and a /balance started every 20 ms, whatever the answers take, while `going()` and
   * until `least` of each have started; the latencies once all are answered.
   */
  async function otherMerchant(going: () => boolean, least: number) {
    const collectsMs: Promise<Answer>[] = []
    const balancesMs: Promise<Answer>[] = []
    while (going() || collectsMs.length < least) {
      collectsMs.push(collectMs())
      balancesMs.push(balanceMs())
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    return { collect: await Promise.all(collectsMs), balance: await Promise.all(balancesMs) }
  }

  /** The sign-in form's cookie and token, as a browser holds them before posting. */
  async function signInForm(): Promise<{ cookie: string; csrf: string }> {
    const page = await fetch(`${service.url}/dashboard/login`)
    const cookie = page.headers
      .getSetCookie()
      .map((line) => line.split(';')[0])
      .join('; ')
    return { cookie, csrf: csrfIn(await page.text()) }
  }

  /** `burst` requests at once, while the other merchant's are measured; their statuses and the latencies. */
  async function during(request: (n: number) => Promise<Response>) {
    let going = true
    const started = performance.now()
    const statuses = Promise.all(
      Array.from({ length: burst }, async (_, n) => {
        const response = await request(n)
        await response.text()
        return response.status
      }),
    ).finally(() => {
      going = false
    })
    // At least 25 of each (half a second): a burst may be over sooner.
    const latencies = await otherMerchant(() => going, 25)
    return { statuses: await statuses, burstMs: Math.round(performance.now() - started), ...latencies }
  }

  const figures = (answers: { collect: Answer[]; balance: Answer[] }) => {
    const [collect, balance] = [summary(answers.collect), summary(answers.balance)]
    return `collect p50 ${collect.p50} ms, p99 ${collect.p99} ms; /balance p50 ${balance.p50} ms, p99 ${balance.p99} ms`
  }

  test(`${burst} sign-ins at once from one address: few are checked, and another merchant is slowed no more than by ${burst} pages`, {
    timeout: 120_000,
  }, async (t) => {
    await otherMerchant(() => false, 20)
    const quiet = await otherMerchant(() => false, 100)
    // The same number of requests that check no password: what any burst of pages costs the other merchant.
    const pages = await during(() => fetch(`${service.url}/dashboard/login`))
    const form = await signInForm()
    const signIns = await during((n) =>
      fetch(`${service.url}/dashboard/login`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: form.cookie },
        body: new URLSearchParams({
          csrf: form.csrf,
          email: `guess${n}@burst.example`,
          password: `not the password ${n}`,
        }).toString(),
      }),
    )
    t.diagnostic(
      `${store().name}: another merchant without a burst: ${figures(quiet)}; during ${burst} GETs of the sign-in page ` +
        `(${pages.burstMs} ms): ${figures(pages)}; during ${burst} sign-ins from one address (${signIns.burstMs} ms, ` +
        `answered ${tally(signIns.statuses)}): ${figures(signIns)}`,
    )
    for (const answer of [quiet, pages, signIns].flatMap((answers) => [
      ...answers.collect,
      ...answers.balance,
    ]))
      assert.equal(answer.status, 200, 'the other merchant is served')
    const checked = signIns.statuses.filter((status) => status === 401).length
    assert.ok(
      signIns.statuses.every((status) => status === 401 || status === 429 || status === 503),
      'each is a refusal',
    )
    assert.ok(checked <= addressShare, `${checked} passwords checked, at most ${addressShare}`)
    for (const kind of ['collect', 'balance'] as const) {
      const bound = medianBoundMs(summary(pages[kind]).p50)
      const median = summary(signIns[kind]).p50
      assert.ok(median < bound, `${kind} p50 ${median} ms during the sign-ins (bound ${bound} ms)`)
    }
  })
})
