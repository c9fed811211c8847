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

async function startWith(contents: string): Promise<unknown> {
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
    return undefined
  } catch (error) {
    return error
  }
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
