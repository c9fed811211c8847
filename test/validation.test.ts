import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { Type } from 'typebox'
import type { IssuedMerchant } from '../src/app/merchants.ts'
import { toFieldErrors, validatorCompiler } from '../src/http/validation.ts'
import { type ApiClient, type ApiResponse, startApp, type TestApp } from './support/app.ts'
import { countRows, readBalances } from './support/ledger.ts'
import { describeEachStore } from './support/stores.ts'

/** A request or response body: untyped JSON. */
type Json = ApiResponse['body']

const callbackUrl = 'https://merchant.example/sika/callback'
const customer = { fullName: 'Awa Kone', phoneNumber: '2250700000001', email: 'awa.kone@example.com' }

/** Valid bodies (the first test proves it); each case below breaks one or several things. */
const collect = {
  amount: 5000,
  channel: 'orange-money',
  country: 'CI',
  customer,
  merchantReference: 'validation-collect',
  callbackUrl,
}
const disbursement = { ...collect, merchantReference: 'validation-disbursement' }
// An SN side takes an SN number (CONTRACT.md, Errors: phone numbers are read for the side's country).
const withdraw = {
  ...collect,
  channel: 'wave',
  country: 'SN',
  customer: { phoneNumber: '221770000001' },
  merchantReference: 'validation-withdraw',
}
const recharge = { ...collect, merchantReference: 'validation-recharge' }
const transfer = {
  from: { amount: 5000, channel: 'orange-money', country: 'CI', customer },
  to: { amount: 5000, channel: 'mtn-momo', country: 'CI', customer: { phoneNumber: '2250500000001' } },
  merchantReference: 'validation-transfer',
  callbackUrl,
}
const valid = { collect, disbursement, withdraw, recharge, transfer }

const removed = Symbol('removed')

/** A copy of `base` with dotted paths set to new values, or deleted with `removed`. */
function variant(base: Json, changes: Record<string, unknown>): Json {
  const body = structuredClone(base)
  for (const [path, value] of Object.entries(changes)) {
    const keys = path.split('.')
    const last = keys.pop()!
    const parent = keys.reduce((object, key) => object[key], body)
    if (value === removed) delete parent[last]
    else parent[last] = value
  }
  return body
}

type Kind = keyof typeof valid

interface Case {
  name: string
  kind: Kind
  body: unknown
  /** The envelope's code. */
  code: 'validation_failed' | 'channel_unavailable' | 'amount_out_of_range' | 'insufficient_balance'
  /** One entry per field at fault: the field, and its code where the contract names it. */
  errors: readonly (readonly [field: string, code?: string])[]
}

const requiredFields = [
  'amount',
  'channel',
  'country',
  'customer',
  'customer.phoneNumber',
  'merchantReference',
  'callbackUrl',
]

/** Required fields left out: each one of a collect, and a few of the other kinds. */
const missingFields: (readonly [kind: Kind, field: string])[] = [
  ...requiredFields.map((field) => ['collect', field] as const),
  ['withdraw', 'amount'],
  ['recharge', 'callbackUrl'],
  ['disbursement', 'customer.phoneNumber'],
  ['transfer', 'to'],
  ['transfer', 'from.customer'],
]

const cases: Case[] = [
  // Required fields (spec: Initiate, Body; CONTRACT.md: code `required`).
  ...missingFields.map(
    ([kind, field]): Case => ({
      name: `${kind} without ${field}`,
      kind,
      body: variant(valid[kind], { [field]: removed }),
      code: 'validation_failed',
      errors: [[field, 'required']],
    }),
  ),

  // Types: bodies keep their JSON types.
  {
    name: 'amount as the string "100"',
    kind: 'collect',
    body: variant(collect, { amount: '100' }),
    code: 'validation_failed',
    errors: [['amount', 'invalid_type']],
  },
  {
    name: 'customer as a string',
    kind: 'collect',
    body: variant(collect, { customer: 'Awa Kone' }),
    code: 'validation_failed',
    errors: [['customer', 'invalid_type']],
  },
  {
    // The body itself is at fault: its field path is empty.
    name: 'a JSON array as the body',
    kind: 'collect',
    body: [collect],
    code: 'validation_failed',
    errors: [['', 'invalid_type']],
  },

  // Unknown fields: a typo must not pass silently.
  {
    name: 'an unknown top-level field',
    kind: 'collect',
    body: variant(collect, { colour: 'blue' }),
    code: 'validation_failed',
    errors: [['colour', 'unknown_field']],
  },
  {
    name: 'an unknown customer field',
    kind: 'collect',
    body: variant(collect, { 'customer.address': 'Plateau' }),
    code: 'validation_failed',
    errors: [['customer.address', 'unknown_field']],
  },
  {
    name: 'an unknown field of a transfer side',
    kind: 'transfer',
    body: variant(transfer, { 'to.note': 'thanks' }),
    code: 'validation_failed',
    errors: [['to.note', 'unknown_field']],
  },

  // Bounds (CONTRACT.md, Errors).
  ...(
    [
      ['phoneNumber of 7 digits', 'customer.phoneNumber', '1234567'],
      ['phoneNumber of 16 digits', 'customer.phoneNumber', '1234567890123456'],
      ['phoneNumber with letters', 'customer.phoneNumber', '22507abc0001'],
      ['an invalid email', 'customer.email', 'awa.kone'],
      ['fullName of 101 characters', 'customer.fullName', 'A'.repeat(101)],
      ['merchantReference of 65 characters', 'merchantReference', 'r'.repeat(65)],
      ['an empty merchantReference', 'merchantReference', ''],
      ['merchantReference with a control character', 'merchantReference', 'line\nbreak'],
      ['callbackUrl not http(s)', 'callbackUrl', 'ftp://merchant.example/callback'],
      ['callbackUrl of 2049 characters', 'callbackUrl', `https://merchant.example/${'a'.repeat(2024)}`],
      ['failedUrl not http(s)', 'failedUrl', 'javascript:alert(1)'],
      ['amount 0', 'amount', 0],
      ['a negative amount', 'amount', -100],
      ['XOF amount with decimals', 'amount', 100.5],
      ['an unknown country', 'country', 'ZZ'],
      ['a lower-case country', 'country', 'ci'],
    ] as const
  ).map(
    ([name, field, value]): Case => ({
      name,
      kind: 'collect',
      body: variant(collect, { [field]: value }),
      code: 'validation_failed',
      errors: [[field]],
    }),
  ),
  // Phone numbers are read for the side's country: another country's calling code is refused.
  {
    name: 'a Senegal number (+221) on a CI collect',
    kind: 'collect',
    body: variant(collect, { 'customer.phoneNumber': '+221770000002' }),
    code: 'validation_failed',
    errors: [['customer.phoneNumber', 'wrong_country']],
  },
  {
    name: 'a Senegal number without its + on a CI collect',
    kind: 'collect',
    body: variant(collect, { 'customer.phoneNumber': '221770000002' }),
    code: 'validation_failed',
    errors: [['customer.phoneNumber', 'wrong_country']],
  },
  {
    name: 'a CI number on the SN side of a transfer, beside an unavailable channel',
    kind: 'transfer',
    body: variant(transfer, {
      'to.country': 'SN',
      'to.channel': 'wave',
      'to.customer.phoneNumber': '+2250700000009',
      'from.channel': 'mpesa',
    }),
    code: 'validation_failed',
    errors: [['to.customer.phoneNumber', 'wrong_country'], ['from.channel']],
  },
  {
    name: 'GHS amount with 3 decimals',
    kind: 'collect',
    body: variant(collect, { amount: 10.125, channel: 'mtn-momo', country: 'GH' }),
    code: 'validation_failed',
    errors: [['amount']],
  },
  {
    // The schema caps amounts at 1e12 major units; the domain's ceiling is 1e12 minor units.
    name: 'a GHS amount above the largest amount, in minor units',
    kind: 'collect',
    body: variant(collect, { amount: 20_000_000_000, channel: 'mtn-momo', country: 'GH' }),
    code: 'validation_failed',
    errors: [['amount', 'out_of_range']],
  },

  // The catalogue: routes and their limits (orange-money CI collect: 100 to 2,000,000 XOF).
  {
    name: 'a channel that does not serve the country (mpesa in CI)',
    kind: 'collect',
    body: variant(collect, { channel: 'mpesa' }),
    code: 'channel_unavailable',
    errors: [['channel']],
  },
  {
    name: 'an amount below the channel minimum',
    kind: 'collect',
    body: variant(collect, { amount: 99 }),
    code: 'amount_out_of_range',
    errors: [['amount']],
  },
  {
    name: 'an amount above the channel maximum',
    kind: 'collect',
    body: variant(collect, { amount: 2_000_001 }),
    code: 'amount_out_of_range',
    errors: [['amount']],
  },

  // Transfers: fields named with their full path.
  {
    name: 'a transfer between currencies (CI XOF to GH GHS)',
    kind: 'transfer',
    body: variant(transfer, {
      'to.country': 'GH',
      'to.amount': 50,
      'to.customer.phoneNumber': '233240000001',
    }),
    code: 'validation_failed',
    errors: [['to.country']],
  },
  {
    name: 'a transfer with an invalid to.customer.phoneNumber',
    kind: 'transfer',
    body: variant(transfer, { 'to.customer.phoneNumber': 'abc' }),
    code: 'validation_failed',
    errors: [['to.customer.phoneNumber']],
  },
  {
    name: 'a transfer whose to channel does not serve the country',
    kind: 'transfer',
    body: variant(transfer, { 'to.channel': 'mpesa' }),
    code: 'channel_unavailable',
    errors: [['to.channel']],
  },

  // Several faults at once: one entry each.
  {
    name: 'a missing amount, an invalid email and an unknown field',
    kind: 'collect',
    body: variant(collect, { amount: removed, 'customer.email': 'not-an-email', colour: 'blue' }),
    code: 'validation_failed',
    errors: [['amount', 'required'], ['customer.email'], ['colour', 'unknown_field']],
  },
  {
    name: 'a transfer with XOF decimals on from and an unavailable channel on to',
    kind: 'transfer',
    body: variant(transfer, { 'from.amount': 100.5, 'to.channel': 'mpesa' }),
    code: 'validation_failed',
    errors: [['from.amount'], ['to.channel']],
  },

  // Balances: a sandbox merchant opens with 1,000,000 XOF; fees are borne by the account.
  {
    name: 'a disbursement larger than the balance (1,500,000 XOF + 1%)',
    kind: 'disbursement',
    body: variant(disbursement, { amount: 1_500_000 }),
    code: 'insufficient_balance',
    errors: [['amount', 'insufficient_balance']],
  },
  {
    name: 'a withdraw whose fee takes it past the balance (1,000,000 XOF + 0.5%)',
    kind: 'withdraw',
    body: variant(withdraw, { amount: 1_000_000 }),
    code: 'insufficient_balance',
    errors: [['amount', 'insufficient_balance']],
  },
  {
    name: 'a transfer whose to side is larger than the balance',
    kind: 'transfer',
    body: variant(transfer, { 'from.amount': 1_500_000, 'to.amount': 1_500_000 }),
    code: 'insufficient_balance',
    errors: [['to.amount', 'insufficient_balance']],
  },
]

function assertRejected(response: ApiResponse, expected: Case): void {
  assert.equal(response.status, 422, response.text)
  const body = response.body
  assert.deepEqual(Object.keys(body).sort(), [
    'code',
    'errors',
    'message',
    'requestId',
    'statusCode',
    'success',
  ])
  assert.equal(body.success, false)
  assert.equal(body.statusCode, 422)
  assert.equal(body.code, expected.code)
  assert.ok(typeof body.message === 'string' && body.message.length > 0, 'a message')
  assert.ok(typeof body.requestId === 'string' && body.requestId.length > 0, 'a requestId')
  assert.ok(Array.isArray(body.errors), 'errors is an array')
  for (const entry of body.errors) {
    assert.deepEqual(Object.keys(entry).sort(), ['code', 'field', 'message'], JSON.stringify(entry))
    assert.equal(typeof entry.field, 'string')
    assert.ok(typeof entry.code === 'string' && entry.code.length > 0, `a code for ${entry.field}`)
    assert.ok(typeof entry.message === 'string' && entry.message.length > 0, `a message for ${entry.field}`)
  }
  const fields = body.errors.map((entry: Json) => entry.field)
  assert.deepEqual(
    [...fields].sort(),
    expected.errors.map(([field]) => field).sort(),
    `one entry per field at fault: ${JSON.stringify(body.errors)}`,
  )
  for (const [field, code] of expected.errors) {
    if (code) assert.equal(body.errors.find((entry: Json) => entry.field === field).code, code, field)
  }
}

describeEachStore('initiation requests the contract refuses (422)', (store) => {
  let app: TestApp
  let merchant: IssuedMerchant
  let client: ApiClient

  before(async () => {
    app = await startApp(store())
    merchant = await app.createMerchant('Validation merchant')
    client = app.client(merchant.sandbox)
  })
  after(() => app.close())

  /** Everything a request could create or move for the merchant. */
  const snapshot = async () => ({
    operations: await countRows(app, 'operations', merchant.id),
    ledgerEntries: await countRows(app, 'ledger_entries', merchant.id),
    balances: await readBalances(app, merchant.id),
    counters: await app.db
      .selectFrom('counters')
      .select(['mode', 'name', 'value'])
      .where('merchant_id', '=', merchant.id)
      .orderBy('mode')
      .orderBy('name')
      .execute(),
  })

  test('the valid bodies the cases start from are accepted', async () => {
    for (const [kind, body] of Object.entries(valid)) {
      // Another reference: the cases' own references must stay unused, or they would be 409s.
      const response = await client.post(`/api/v1/${kind}`, {
        ...body,
        merchantReference: `accepted-${kind}`,
      })
      assert.equal(response.status, 200, `${kind}: ${response.text}`)
    }
  })

  for (const rejected of cases) {
    const fields = rejected.errors.map(([field]) => field || '(body)').join(', ')
    test(`${rejected.name}: 422 ${rejected.code} naming ${fields}, and nothing is created`, async () => {
      const before = await snapshot()
      assert.ok(before.operations > 0, 'the merchant has operations to compare with')
      const response = await client.post(`/api/v1/${rejected.kind}`, rejected.body)
      assertRejected(response, rejected)
      assert.deepEqual(await snapshot(), before, 'no operation, no ledger entry, no balance moved')
    })
  }
})

/** CONTRACT.md, Errors: "Every message that rejects a value from a closed set names the allowed values (or where to list them)". */
describeEachStore('messages that refuse a value of a closed set name the allowed values', (store) => {
  let app: TestApp
  let client: ApiClient
  before(async () => {
    app = await startApp(store())
    client = app.client((await app.createMerchant('Closed sets merchant')).sandbox)
  })
  after(() => app.close())

  const messageOf = (response: ApiResponse, field: string): string => {
    assert.equal(response.status, 422, response.text)
    const entry = response.body.errors.find((error: Json) => error.field === field)
    assert.ok(entry, `an entry for ${field}: ${response.text}`)
    return entry.message
  }

  for (const [path, query, field, message] of [
    [
      '/api/v1/collect',
      { status: 'paid' },
      'status',
      'status must be one of pending, succeeded, failed, canceled, error.',
    ],
    [
      '/api/v1/transfer',
      { status: 'done' },
      'status',
      'status must be one of pending, succeeded, failed, canceled, error.',
    ],
    ['/api/v1/transaction', { type: 'payment' }, 'type', 'type must be one of cash-in, cash-out, reversal.'],
    [
      '/api/v1/transaction',
      { status: 'failed' },
      'status',
      'status must be one of pending, succeeded, canceled.',
    ],
  ] as const) {
    test(`GET ${path}?${new URLSearchParams(query)}: ${message}`, async () => {
      const response = await client.get(path, query)
      assert.equal(response.body.code, 'validation_failed')
      assert.equal(messageOf(response, field), message)
      assert.equal(response.body.errors.length, 1, 'one entry for the field, not one per allowed value')
    })
  }

  test('the operation kinds are named from the kinds table, on the transactions and the channels', async () => {
    for (const path of ['/api/v1/transaction?operation=payment', '/api/v1/channels?kind=payment']) {
      const response = await client.request('GET', path)
      const message = messageOf(response, path.includes('operation') ? 'operation' : 'kind')
      assert.match(message, /must be one of /, message)
      for (const kind of ['collect', 'recharge', 'disbursement', 'withdraw', 'transfer'])
        assert.ok(message.includes(kind), `${kind} in: ${message}`)
    }
  })

  test('a channel outside the catalogue says where to list the channels', async () => {
    const unavailable = await client.post('/api/v1/collect', variant(collect, { channel: 'paypal' }))
    assert.equal(unavailable.body.code, 'channel_unavailable')
    assert.match(messageOf(unavailable, 'channel'), /GET \/api\/v1\/channels/)
    const malformed = await client.post('/api/v1/collect', variant(collect, { channel: 'Orange Money' }))
    assert.match(messageOf(malformed, 'channel'), /GET \/api\/v1\/channels/)
  })

  test('a country that is not served names the served ones', async () => {
    const response = await client.post('/api/v1/collect', variant(collect, { country: 'FR' }))
    const message = messageOf(response, 'country')
    for (const country of ['CI', 'SN', 'BJ', 'GH', 'KE', 'UG']) assert.ok(message.includes(country), message)
  })
})

describe('the allowed values are read from the schema that refused the value', () => {
  const schema = Type.Object({
    mode: Type.Optional(Type.Union([Type.Literal('sandbox'), Type.Literal('live')])),
    colour: Type.Optional(Type.String({ enum: ['red', 'green'] })),
    version: Type.Optional(Type.Literal(1)),
    state: Type.Optional(Type.Union([Type.Literal('open'), Type.Null()])),
    either: Type.Optional(Type.Union([Type.String({ minLength: 3 }), Type.Number()])),
  })
  const validate = validatorCompiler({ schema, httpPart: 'body', method: 'POST', url: '/' } as never) as ((
    data: unknown,
  ) => boolean) & { errors: never[] }
  const messages = (body: unknown) => {
    assert.equal(validate(body), false)
    return Object.fromEntries(toFieldErrors(validate.errors).map((entry) => [entry.field, entry.message]))
  }

  test('a union of literals, an enum, a const and a nullable union name their values, in one entry each', () => {
    assert.deepEqual(messages({ mode: 'test', colour: 'blue', version: 2, state: 'shut' }), {
      mode: 'mode must be one of sandbox, live.',
      colour: 'colour must be one of red, green.',
      version: 'version must be 1.',
      state: 'state must be one of open, null.',
    })
  })

  test('a union that is not a closed set keeps its first problem', () => {
    const entries = (() => {
      assert.equal(validate({ either: 'ab' }), false)
      return toFieldErrors(validate.errors)
    })()
    assert.equal(entries.length, 1)
    assert.equal(entries[0]!.field, 'either')
    assert.doesNotMatch(entries[0]!.message, /one of/)
  })
})
