import assert from 'node:assert/strict'
import { generateKeyPairSync } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, test } from 'node:test'
import { createContext } from '../../src/app/bootstrap.ts'
import { ConfigError, loadConfig } from '../../src/config.ts'
import { createLogger } from '../../src/logger.ts'
import { testSecretsKey } from '../support/app.ts'

/**
 * CONTRACT.md, Operators: a bad OPERATORS_FILE stops the start with a message naming the entry and
 * the field, and never quoting a value (the file holds secrets).
 */

const directory = mkdtempSync(join(tmpdir(), 'sika-operators-file-'))
after(() => rmSync(directory, { recursive: true, force: true }))

const secret = 'very-secret-api-key-value'
const mtn = {
  channel: 'mtn-momo',
  countries: ['CI'],
  adapter: 'mtn-momo',
  baseUrl: 'http://127.0.0.1:9',
  targetEnvironment: 'sandbox',
  collection: { apiUser: 'u', apiKey: secret, subscriptionKey: 'k' },
  disbursement: { apiUser: 'u', apiKey: secret, subscriptionKey: 'k' },
}

const pawapay = {
  channel: 'moov-money',
  countries: ['BJ', 'CI'],
  adapter: 'pawapay',
  baseUrl: 'http://127.0.0.1:9',
  apiToken: secret,
  providers: { BJ: 'MOOV_BEN', CI: 'MOOV_CIV' },
}

const wave = {
  channel: 'wave',
  countries: ['SN'],
  adapter: 'wave',
  baseUrl: 'http://127.0.0.1:9',
  apiKey: secret,
  webhookSecret: secret,
}

/** Starts Sika with the file; what its live connections are named and alert on, or why it did not start. */
async function connectionsOf(
  contents: string,
): Promise<{ error: unknown } | { connections: { id: string; alerts: unknown }[] }> {
  const path = join(directory, `operators-${Math.random()}.json`)
  writeFileSync(path, contents)
  const config = loadConfig({
    DATABASE_URL: ':memory:',
    SECRETS_KEY: testSecretsKey,
    OPERATORS_FILE: path,
  })
  try {
    const context = await createContext(config, createLogger('silent'))
    await context.store.close()
    const connections = context.providers
      .liveConnections()
      .map((connection) => ({ id: connection.id, alerts: connection.lowBalanceAlerts }))
    return { connections }
  } catch (error) {
    return { error }
  }
}

async function startWith(contents: string): Promise<unknown> {
  const started = await connectionsOf(contents)
  return 'error' in started ? started.error : undefined
}

const refusals: { name: string; contents: unknown; message: RegExp }[] = [
  { name: 'not JSON', contents: '{', message: /is not valid JSON/ },
  { name: 'no connections', contents: {}, message: /"connections" array/ },
  {
    name: 'an unknown adapter',
    contents: { connections: [{ ...mtn, adapter: 'mpesa-daraja' }] },
    message: /connections\[0\] \(mtn-momo\): adapter must be one of mtn-momo/,
  },
  {
    name: 'a missing credential',
    contents: { connections: [{ ...mtn, disbursement: { apiUser: 'u', subscriptionKey: 'k' } }] },
    message: /connections\[0\] \(mtn-momo\): disbursement\.apiKey is required/,
  },
  {
    name: 'a bad country',
    contents: { connections: [{ ...mtn, countries: ['ci'] }] },
    message: /countries must be a non-empty list of ISO codes/,
  },
  {
    name: 'two connections for one channel and country',
    contents: { connections: [mtn, mtn] },
    message: /connections\[1\] \(mtn-momo\): CI is already served by connections\[0\]/,
  },
  {
    name: 'a pawaPay entry without its API token',
    contents: { connections: [{ ...pawapay, apiToken: '' }] },
    message: /connections\[0\] \(moov-money\): apiToken is required/,
  },
  {
    name: 'a pawaPay entry without providers',
    contents: { connections: [{ ...pawapay, providers: undefined }] },
    message: /connections\[0\] \(moov-money\): providers is required/,
  },
  {
    name: 'a pawaPay entry with no provider code for one of its countries',
    contents: { connections: [{ ...pawapay, providers: { BJ: 'MOOV_BEN' } }] },
    message: /connections\[0\] \(moov-money\): providers\.CI is required/,
  },
  {
    name: 'a pawaPay entry whose provider code is not one',
    contents: { connections: [{ ...pawapay, providers: { BJ: 'MOOV_BEN', CI: 42 } }] },
    message: /connections\[0\] \(moov-money\): providers\.CI is required/,
  },
  {
    name: 'a pawaPay entry whose callback key is no public key',
    contents: { connections: [{ ...pawapay, callbackPublicKey: secret }] },
    message: /connections\[0\] \(moov-money\): callbackPublicKey must be a public key/,
  },
  {
    name: 'an id that is no name',
    contents: { connections: [{ ...mtn, id: 'MTN Côte d’Ivoire' }] },
    message:
      /connections\[0\] \(mtn-momo\): id must be 1 to 64 lower-case letters, digits, hyphens or underscores/,
  },
  {
    name: 'two connections of one adapter, one without its id',
    contents: {
      connections: [
        { ...wave, id: 'wave-sn' },
        { ...wave, countries: ['CI'] },
      ],
    },
    message: /connections\[1\] \(wave\): id is required when several connections use the wave adapter/,
  },
  {
    name: 'one id given twice',
    contents: {
      connections: [
        { ...wave, id: 'wallet' },
        { ...mtn, id: 'wallet' },
      ],
    },
    message: /connections\[1\] \(mtn-momo\): id is already the id of connections\[0\]/,
  },
  {
    name: 'an id that is another connection’s default',
    contents: { connections: [wave, { ...mtn, id: 'wave' }] },
    message: /connections\[1\] \(mtn-momo\): id is already the id of connections\[0\]/,
  },
  {
    name: 'a low balance alert that is not an amount',
    contents: { connections: [{ ...mtn, lowBalanceAlert: '100000' }] },
    message: /connections\[0\] \(mtn-momo\): lowBalanceAlert must be a positive amount in XOF/,
  },
  {
    name: 'a low balance alert below zero',
    contents: { connections: [{ ...mtn, lowBalanceAlert: -5 }] },
    message: /connections\[0\] \(mtn-momo\): lowBalanceAlert must be a positive amount in XOF/,
  },
  {
    name: 'a low balance alert with more decimals than its currency',
    contents: { connections: [{ ...mtn, lowBalanceAlert: 100.5 }] },
    message:
      /connections\[0\] \(mtn-momo\): lowBalanceAlert must be a positive amount in XOF, in major units/,
  },
  {
    name: 'one low balance alert for a connection whose countries hold two currencies',
    contents: {
      connections: [
        {
          ...pawapay,
          countries: ['BJ', 'GH'],
          providers: { BJ: 'MOOV_BEN', GH: 'MTN_MOMO_GHA' },
          lowBalanceAlert: 500,
        },
      ],
    },
    message:
      /connections\[0\] \(moov-money\): lowBalanceAlert must be an amount per currency of the connection, such as/,
  },
  {
    name: 'a low balance alert in a currency the connection does not hold',
    contents: { connections: [{ ...mtn, lowBalanceAlert: { GHS: 500 } }] },
    message: /connections\[0\] \(mtn-momo\): lowBalanceAlert\.GHS is not a currency of the connection/,
  },
]

for (const { name, contents, message } of refusals) {
  test(`${name}: the start stops, naming the entry and the field, quoting no secret`, async () => {
    const error = await startWith(typeof contents === 'string' ? contents : JSON.stringify(contents))
    assert.ok(error instanceof ConfigError, String(error))
    assert.match(error.message, message)
    assert.ok(!error.message.includes(secret), 'no secret in the message')
  })
}

test('a good file starts', async () => {
  assert.equal(await startWith(JSON.stringify({ connections: [mtn] })), undefined)
})

test('a good pawaPay entry starts, with or without the key its callbacks are signed with', async () => {
  assert.equal(await startWith(JSON.stringify({ connections: [pawapay] })), undefined)
  const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' })
  const callbackPublicKey = publicKey.export({ type: 'spki', format: 'pem' }).toString()
  assert.equal(
    await startWith(JSON.stringify({ connections: [{ ...pawapay, callbackPublicKey }] })),
    undefined,
  )
})

test('each connection is named by its id; without one, by its adapter when no other connection uses it', async () => {
  const started = await connectionsOf(
    JSON.stringify({
      connections: [mtn, pawapay, { ...wave, id: 'wave-sn' }, { ...wave, id: 'wave-ci', countries: ['CI'] }],
    }),
  )
  assert.ok('connections' in started, String('error' in started && started.error))
  assert.deepEqual(
    started.connections.map((connection) => connection.id),
    ['mtn-momo', 'pawapay', 'wave-sn', 'wave-ci'],
  )
})

test('a low balance alert is an amount in the major units of the connection’s currency, or one per currency', async () => {
  const started = await connectionsOf(
    JSON.stringify({
      connections: [
        { ...mtn, lowBalanceAlert: 250000 },
        {
          ...pawapay,
          countries: ['BJ', 'GH'],
          providers: { BJ: 'MOOV_BEN', GH: 'MTN_MOMO_GHA' },
          lowBalanceAlert: { XOF: 100000, GHS: 1500.5 },
        },
        wave,
      ],
    }),
  )
  assert.ok('connections' in started, String('error' in started && started.error))
  assert.deepEqual(
    started.connections.map((connection) => connection.alerts),
    [
      [{ currency: 'XOF', amountMinor: 250000 }],
      [
        { currency: 'XOF', amountMinor: 100000 },
        { currency: 'GHS', amountMinor: 150050 },
      ],
      [],
    ],
  )
})
