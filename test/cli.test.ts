import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { signingSecrets } from '../src/app/webhook-secrets.ts'
import type { Mode } from '../src/domain/kinds.ts'
import { parseDatabaseLocation } from '../src/store/database-location.ts'
import { migrate, openStore } from '../src/store/store.ts'
import { type ApiClient, type ApiResponse, startApp, type TestApp } from './support/app.ts'
import { type CliResult, runSika } from './support/cli.ts'
import { describeEachStore } from './support/stores.ts'
import { pollUntilDefined } from './support/wait.ts'

const writableTables = ['merchants', 'api_keys', 'fee_schedule', 'operations', 'ledger_entries'] as const

function collectBody(merchantReference: string, amount: number) {
  return {
    amount,
    channel: 'orange-money',
    country: 'CI',
    customer: { phoneNumber: '2250700000001' },
    merchantReference,
    callbackUrl: 'https://merchant.example/callbacks',
  }
}

/** CONTRACT.md, Pricing, for a currency without decimals. */
function expectedFees(amount: number, percentageFee: number, additionalFee: number): number {
  return Math.floor((amount * percentageFee) / 100 + additionalFee + 0.5)
}

describeEachStore('The sika command', (store) => {
  let app: TestApp
  const databaseUrl = () => store().databaseUrl
  const sika = (...args: string[]) => runSika(databaseUrl(), args)
  /**
   * The secrets that sign now, as stored: the command rotates them in another process, which
   * this process's cache of them sees only after it is no longer fresh.
   */
  const storedSigningSecrets = (merchantId: string, mode: Mode) => {
    app.context.signingSecrets.forgetAll()
    return signingSecrets(app.context, merchantId, mode)
  }
  const rowCounts = async () => {
    const counts: Record<string, number> = {}
    for (const table of writableTables) {
      const row = await app.db
        .selectFrom(table)
        .select((expression) => expression.fn.countAll().as('count'))
        .executeTakeFirstOrThrow()
      counts[table] = Number(row.count)
    }
    return counts
  }
  let migrateOnEmptyDatabase: CliResult
  before(async () => {
    migrateOnEmptyDatabase = await sika('migrate')
    // The server and the command share the database, as they do in production.
    app = await startApp(store())
  })
  after(() => app.close())

  test('migrate on an empty database exits 0 having applied every migration', async () => {
    assert.equal(migrateOnEmptyDatabase.code, 0, migrateOnEmptyDatabase.stderr)
    // The command did the whole job: the server's own migrate, at start, found nothing left.
    const store = openStore(parseDatabaseLocation(databaseUrl()))
    try {
      assert.deepEqual(await migrate(store), [])
    } finally {
      await store.close()
    }
  })

  test('merchant create --name X --json prints one JSON object whose keys authenticate', {
    timeout: 60_000,
  }, async () => {
    const result = await sika('merchant', 'create', '--name', 'Boutique Adjamé', '--json')
    assert.equal(result.code, 0, result.stderr)
    const lines = result.stdout.trim().split('\n')
    assert.equal(lines.length, 1, `exactly one line on stdout:\n${result.stdout}`)
    const issued = JSON.parse(lines[0]!)
    assert.deepEqual(Object.keys(issued).sort(), ['id', 'live', 'name', 'sandbox', 'webhookSecret'])
    assert.equal(issued.name, 'Boutique Adjamé')
    assert.deepEqual(Object.keys(issued.sandbox).sort(), ['apiKey', 'secretKey', 'webhookSecret'])
    assert.deepEqual(Object.keys(issued.live).sort(), ['apiKey', 'secretKey', 'webhookSecret'])
    assert.match(issued.sandbox.apiKey, /^pk_test_/)
    assert.match(issued.sandbox.secretKey, /^sk_test_/)
    assert.match(issued.live.apiKey, /^pk_live_/)
    assert.match(issued.live.secretKey, /^sk_live_/)
    assert.match(issued.sandbox.webhookSecret, /^whsec_/)
    assert.match(issued.live.webhookSecret, /^whsec_/)
    assert.notEqual(issued.live.webhookSecret, issued.sandbox.webhookSecret, 'each mode has its own')
    assert.equal(issued.webhookSecret, issued.sandbox.webhookSecret, 'the top-level one is the sandbox one')
    assert.deepEqual(await storedSigningSecrets(issued.id, 'sandbox'), [issued.sandbox.webhookSecret])
    assert.deepEqual(await storedSigningSecrets(issued.id, 'live'), [issued.live.webhookSecret])

    const sandbox = await app.client(issued.sandbox).get('/api/v1/channels')
    assert.equal(sandbox.status, 200, sandbox.text)
    const live = await app.client(issued.live).get('/api/v1/channels')
    assert.equal(live.status, 200, live.text)
  })

  test('merchant create --name X shows both webhook secrets, each with its mode', {
    timeout: 60_000,
  }, async () => {
    const result = await sika('merchant', 'create', '--name', 'Readable merchant')
    assert.equal(result.code, 0, result.stderr)
    const id = /Created merchant (mer_[a-z0-9]+)/.exec(result.stdout)?.[1]
    assert.ok(id, result.stdout)
    const secrets = [...result.stdout.matchAll(/webhook secret (whsec_[A-Za-z0-9+/=]+)/g)].map(
      (match) => match[1],
    )
    assert.equal(secrets.length, 2, result.stdout)
    const sandboxAt = result.stdout.indexOf('sandbox')
    const liveAt = result.stdout.indexOf('live ')
    assert.ok(sandboxAt < result.stdout.indexOf(secrets[0]!) && liveAt < result.stdout.indexOf(secrets[1]!))
    assert.deepEqual(await storedSigningSecrets(id, 'sandbox'), [secrets[0]])
    assert.deepEqual(await storedSigningSecrets(id, 'live'), [secrets[1]])
  })

  test('webhook-secret rotate ID --mode live --json: a new live secret; sandbox signing is untouched', {
    timeout: 60_000,
  }, async () => {
    const merchant = await app.createMerchant()
    const result = await sika('webhook-secret', 'rotate', merchant.id, '--mode', 'live', '--json')
    assert.equal(result.code, 0, result.stderr)
    const lines = result.stdout.trim().split('\n')
    assert.equal(lines.length, 1, `exactly one line on stdout:\n${result.stdout}`)
    const rotated = JSON.parse(lines[0]!)
    assert.deepEqual(Object.keys(rotated).sort(), ['mode', 'webhookSecret'])
    assert.equal(rotated.mode, 'live')
    assert.match(rotated.webhookSecret, /^whsec_/)
    assert.deepEqual(await storedSigningSecrets(merchant.id, 'live'), [
      rotated.webhookSecret,
      merchant.live.webhookSecret,
    ])
    assert.deepEqual(await storedSigningSecrets(merchant.id, 'sandbox'), [merchant.sandbox.webhookSecret])

    const sandbox = await sika('webhook-secret', 'rotate', merchant.id, '--mode', 'sandbox')
    assert.equal(sandbox.code, 0, sandbox.stderr)
    const shown = /(whsec_[A-Za-z0-9+/=]+)/.exec(sandbox.stdout)?.[1]
    assert.ok(shown, sandbox.stdout)
    assert.match(sandbox.stdout, /sandbox/)
    assert.deepEqual(await storedSigningSecrets(merchant.id, 'sandbox'), [
      shown,
      merchant.sandbox.webhookSecret,
    ])
    assert.equal((await storedSigningSecrets(merchant.id, 'live')).length, 2, 'live is untouched')

    const unknown = await sika('webhook-secret', 'rotate', 'mer_doesnotexist0000000', '--mode', 'live')
    assert.equal(unknown.code, 1, unknown.stdout)
    assert.match(unknown.stderr, /mer_doesnotexist0000000/)
  })

  test('webhook-secret rotate without --mode, or with another mode, exits 2 naming sandbox and live', {
    timeout: 60_000,
  }, async () => {
    const merchant = await app.createMerchant()
    const missing = /^sika webhook-secret rotate: needs --mode: sandbox or live\n/
    const invocations: [string[], RegExp][] = [
      [['webhook-secret', 'rotate', merchant.id], missing],
      [['webhook-secret', 'rotate', merchant.id, '--json'], missing],
      [
        ['webhook-secret', 'rotate', merchant.id, '--mode', 'production'],
        /^sika webhook-secret rotate: --mode is sandbox or live, not production\n/,
      ],
      [['webhook-secret', 'rotate', merchant.id, '--mode', ''], missing],
    ]
    const results = await Promise.all(invocations.map(([args]) => sika(...args)))
    for (const [index, result] of results.entries()) {
      const [words, says] = invocations[index]!
      const args = words.join(' ')
      assert.equal(result.code, 2, `${args}: exit code (stderr: ${result.stderr})`)
      assert.match(result.stderr, says, args)
      assert.match(
        result.stderr,
        /webhook-secret rotate MERCHANT_ID --mode sandbox\|live/,
        `${args}: the usage`,
      )
      assert.equal(result.stdout, '', args)
    }
    assert.deepEqual(await storedSigningSecrets(merchant.id, 'sandbox'), [merchant.sandbox.webhookSecret])
    assert.deepEqual(await storedSigningSecrets(merchant.id, 'live'), [merchant.live.webhookSecret])
  })

  test('merchant list shows each merchant with its status and active api keys', {
    timeout: 60_000,
  }, async () => {
    const merchant = await app.createMerchant('Listed merchant')
    const result = await sika('merchant', 'list')
    assert.equal(result.code, 0, result.stderr)
    const line = result.stdout.split('\n').find((entry) => entry.includes(merchant.id))
    assert.ok(line, `${merchant.id} is listed:\n${result.stdout}`)
    assert.match(line, /Listed merchant/)
    assert.match(line, /\bactive\b/)
    assert.ok(line.includes(merchant.sandbox.apiKey) && line.includes(merchant.live.apiKey), line)
    assert.ok(!result.stdout.includes(merchant.sandbox.secretKey), 'secrets are shown once, at issue')
  })

  /**
   * The CLI is another instance on the same store: what it changes reaches the running app within
   * 1 s (CONTRACT.md), not at once, since the app keeps what it read of a key for up to 500 ms.
   */
  const answeredWithin1s = (client: ApiClient, status: number): Promise<ApiResponse> =>
    pollUntilDefined(
      async () => {
        const answer = await client.get('/api/v1/channels')
        return answer.status === status ? answer : undefined
      },
      `the API to answer ${status}`,
      1000,
    )

  test('merchant suspend ID: the API answers 403; merchant activate ID: 200 again', {
    timeout: 60_000,
  }, async () => {
    const merchant = await app.createMerchant()
    const client = app.client(merchant.sandbox)
    const suspended = await sika('merchant', 'suspend', merchant.id)
    assert.equal(suspended.code, 0, suspended.stderr)
    const refused = await answeredWithin1s(client, 403)
    assert.equal(refused.body.code, 'merchant_suspended')

    const activated = await sika('merchant', 'activate', merchant.id)
    assert.equal(activated.code, 0, activated.stderr)
    await answeredWithin1s(client, 200)
  })

  test('key rotate ID --mode sandbox --json prints a new pair that works; the old one gets 401', {
    timeout: 60_000,
  }, async () => {
    const merchant = await app.createMerchant()
    const result = await sika('key', 'rotate', merchant.id, '--mode', 'sandbox', '--json')
    assert.equal(result.code, 0, result.stderr)
    const lines = result.stdout.trim().split('\n')
    assert.equal(lines.length, 1, `exactly one line on stdout:\n${result.stdout}`)
    const pair = JSON.parse(lines[0]!)
    assert.deepEqual(Object.keys(pair).sort(), ['apiKey', 'secretKey'])
    assert.match(pair.apiKey, /^pk_test_/)
    assert.match(pair.secretKey, /^sk_test_/)

    const fresh = await app.client(pair).get('/api/v1/channels')
    assert.equal(fresh.status, 200, fresh.text)
    const old = await app.client(merchant.sandbox).get('/api/v1/channels')
    assert.equal(old.status, 401, old.text)
    assert.equal(old.body.code, 'invalid_credentials')
    assert.equal(
      (await app.client(merchant.live).get('/api/v1/channels')).status,
      200,
      'the live pair is untouched',
    )
  })

  test('key revoke API_KEY: the pair gets 401 from then on', { timeout: 60_000 }, async () => {
    const merchant = await app.createMerchant()
    assert.equal((await app.client(merchant.sandbox).get('/api/v1/channels')).status, 200)
    const result = await sika('key', 'revoke', merchant.sandbox.apiKey)
    assert.equal(result.code, 0, result.stderr)
    const refused = await answeredWithin1s(app.client(merchant.sandbox), 401)
    assert.equal(refused.body.code, 'invalid_credentials')
  })

  test('migrate on an up-to-date database exits 0 and changes nothing', { timeout: 60_000 }, async () => {
    const before = await rowCounts()
    const result = await sika('migrate')
    assert.equal(result.code, 0, result.stderr)
    assert.deepEqual(await rowCounts(), before)
  })

  test('a wrong invocation exits 2, prints the usage on stderr, and writes nothing', {
    timeout: 90_000,
  }, async () => {
    const merchant = await app.createMerchant()
    const table: { title: string; args: string[] }[] = [
      { title: 'no command', args: [] },
      { title: 'an unknown command', args: ['frobnicate'] },
      { title: 'merchant create without --name', args: ['merchant', 'create'] },
      { title: 'an unknown option', args: ['merchant', 'create', '--name', 'Typo', '--nmae', 'Typo'] },
      { title: 'key rotate with --mode bogus', args: ['key', 'rotate', merchant.id, '--mode', 'bogus'] },
      { title: 'webhook-secret rotate without --mode', args: ['webhook-secret', 'rotate', merchant.id] },
      {
        title: 'fees set without --bearer',
        args: ['fees', 'set', merchant.id, '--kind', 'collect', '--channel', 'wave', '--percentage', '9'],
      },
    ]
    const before = await rowCounts()
    const results = await Promise.all(table.map(({ args }) => sika(...args)))
    for (const [index, result] of results.entries()) {
      const { title } = table[index]!
      assert.equal(result.code, 2, `${title}: exit code (stderr: ${result.stderr})`)
      assert.match(result.stderr, /^sika( [a-z-]+)*: /, `${title}: says what is wrong`)
      assert.match(result.stderr, /Usage: sika/, `${title}: shows the usage`)
      assert.equal(result.stdout, '', `${title}: nothing on stdout`)
    }
    assert.deepEqual(await rowCounts(), before, 'no row was written')
  })

  test('merchant suspend with an unknown merchant id exits 1 and names it', { timeout: 60_000 }, async () => {
    const result = await sika('merchant', 'suspend', 'mer_doesnotexist0000000')
    assert.equal(result.code, 1, result.stdout)
    assert.match(result.stderr, /mer_doesnotexist0000000/)
  })

  test('fees set gives a merchant its own fee row; fees list shows it; the API prices with it', {
    timeout: 60_000,
  }, async () => {
    const merchant = await app.createMerchant()
    const other = await app.createMerchant()
    const set = await sika(
      'fees',
      'set',
      merchant.id,
      '--kind',
      'collect',
      '--channel',
      'orange-money',
      '--country',
      'CI',
      '--percentage',
      '2.5',
      '--fixed',
      '100',
      '--bearer',
      'customer',
    )
    assert.equal(set.code, 0, set.stderr)

    const list = await sika('fees', 'list', merchant.id)
    assert.equal(list.code, 0, list.stderr)
    const row = list.stdout.split('\n').find((line) => line.startsWith(merchant.id))
    assert.ok(row, `the merchant's row is listed:\n${list.stdout}`)
    assert.match(row, /\bcollect\b.*\borange-money\b.*\bCI\b.*\b2\.5% \+ 100\b.*\bcustomer\b/)

    // 1060 * 2.5 % = 26.5: the half rounds up.
    for (const amount of [1000, 1001, 1060, 123_456]) {
      const response = await app
        .client(merchant.sandbox)
        .post('/api/v1/collect', collectBody(`fees-${amount}`, amount))
      assert.equal(response.status, 200, response.text)
      const collect = response.body.data.collect
      const feesAmount = expectedFees(amount, 2.5, 100)
      assert.deepEqual(collect.pricing, {
        percentageFee: 2.5,
        additionalFee: 100,
        feesAmount,
        supportedByAccount: false,
      })
      assert.equal(collect.transactionAmount, amount + feesAmount, 'the customer bears the fee')
      assert.equal(collect.cashAmount, amount)
    }

    const untouched = await app
      .client(other.sandbox)
      .post('/api/v1/collect', collectBody('default-fees', 1000))
    assert.equal(untouched.status, 200, untouched.text)
    assert.deepEqual(untouched.body.data.collect.pricing, {
      percentageFee: 1.5,
      additionalFee: 0,
      feesAmount: 15,
      supportedByAccount: true,
    })
  })

  test('balance MERCHANT --json shows the sandbox opening balance of 1000000 XOF', {
    timeout: 60_000,
  }, async () => {
    const merchant = await app.createMerchant()
    const result = await sika('balance', merchant.id, '--json')
    assert.equal(result.code, 0, result.stderr)
    const lines = result.stdout.trim().split('\n')
    assert.equal(lines.length, 1, `exactly one line on stdout:\n${result.stdout}`)
    const balances = JSON.parse(lines[0]!) as { mode: string; currency: string; balance: number }[]
    const xof = balances.find((row) => row.mode === 'sandbox' && row.currency === 'XOF')
    assert.deepEqual(xof, {
      mode: 'sandbox',
      currency: 'XOF',
      balance: 1_000_000,
      held: 0,
      available: 1_000_000,
    })
    for (const row of balances.filter((entry) => entry.mode === 'sandbox')) {
      assert.equal(row.balance, 1_000_000, `every sandbox currency opens at 1,000,000: ${row.currency}`)
    }
    for (const row of balances.filter((entry) => entry.mode === 'live')) {
      assert.equal(row.balance, 0, `live balances open at zero: ${row.currency}`)
    }
  })
})
