import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { IssuedMerchant } from '../src/app/merchants.ts'
import { phoneNumberFilter, readPhoneNumber } from '../src/domain/phone-numbers.ts'
import { type ApiClient, type ApiResponse, startApp, type TestApp } from './support/app.ts'
import { assertErrorEnvelope } from './support/envelope.ts'
import { countRows } from './support/ledger.ts'
import { describeEachStore } from './support/stores.ts'

/** CONTRACT.md, Errors: phone numbers are read for the side's country and kept in E.164. */
describe('readPhoneNumber: a side\u2019s number in E.164, or why not', () => {
  const accepted: [raw: string, country: string, e164: string, why: string][] = [
    ['0700000901', 'CI', '+2250700000901', 'national form'],
    ['+2250700000901', 'CI', '+2250700000901', 'E.164 already'],
    ['2250700000001', 'CI', '+2250700000001', 'international without the +'],
    ['770000002', 'SN', '+221770000002', 'national form (SN)'],
    ['221770000002', 'SN', '+221770000002', 'international without the + (SN)'],
    ['0712000001', 'KE', '+254712000001', 'national form, trunk prefix 0 dropped'],
    ['254712000001', 'KE', '+254712000001', 'international without the + (KE)'],
    ['233240000001', 'GH', '+233240000001', 'international without the + (GH)'],
    // Benin's numbers grew to 10 digits; the older 8-digit form is no possible number any more,
    // but its calling code is Benin's: accepted, not refused.
    ['+22961000006', 'BJ', '+22961000006', 'the country\u2019s calling code, whatever follows'],
    ['22961000006', 'BJ', '+22961000006', 'nothing fits, but it starts with the calling code'],
    ['0000000000', 'SN', '+2210000000000', 'nothing fits at all: behind the calling code'],
  ]
  for (const [raw, country, e164, why] of accepted) {
    test(`${raw} in ${country} is ${e164} (${why})`, () => {
      assert.deepEqual(readPhoneNumber(raw, country), { e164 })
    })
  }

  test('the last three digits, which choose sandbox outcomes, are kept', () => {
    for (const ending of ['900', '901', '902', '903', '904', '905', '906']) {
      const reading = readPhoneNumber(`0700000${ending}`, 'CI')
      assert.ok('e164' in reading && reading.e164.endsWith(ending), ending)
    }
  })

  const refused: [raw: string, country: string, named: string[]][] = [
    ['+221770000002', 'CI', ['+221', 'Senegal', '+225', 'national form', 'SN']],
    ['221770000002', 'CI', ['+221', 'Senegal', '+225', 'national form']],
    ['+2250700000001', 'SN', ['+225', '+221', 'Senegal']],
    ['2250700000001', 'SN', ['+225', '+221']],
    ['+12025550123', 'CI', ['+1', '+225']],
  ]
  for (const [raw, country, named] of refused) {
    test(`${raw} in ${country} is refused, naming ${named.join(', ')}`, () => {
      const reading = readPhoneNumber(raw, country)
      assert.ok('refusal' in reading, JSON.stringify(reading))
      for (const name of named) assert.ok(reading.refusal.includes(name), `${name} in: ${reading.refusal}`)
    })
  }

  test('the list filter reads a number for the country filter, as international otherwise', () => {
    assert.equal(phoneNumberFilter('+2250700000001'), '+2250700000001')
    assert.equal(phoneNumberFilter('2250700000001'), '+2250700000001')
    assert.equal(phoneNumberFilter(' 2250700000001'), '+2250700000001', 'a + decoded as a space')
    assert.equal(phoneNumberFilter('0700000001', 'CI'), '+2250700000001')
    assert.equal(phoneNumberFilter('2250700000001', 'CI'), '+2250700000001')
    // A transfer's other side may be in another country: read as international.
    assert.equal(phoneNumberFilter('+221770000002', 'CI'), '+221770000002')
    assert.equal(phoneNumberFilter('221770000002', 'CI'), '+221770000002')
  })
})

const callbackUrl = 'https://merchant.example/callbacks'

function collectBody(phoneNumber: string, merchantReference: string, country = 'CI') {
  return {
    amount: 1000,
    channel: 'orange-money',
    country,
    customer: { phoneNumber },
    merchantReference,
    callbackUrl,
  }
}

function transferBody(from: string, to: string, merchantReference: string) {
  return {
    from: { amount: 5000, channel: 'orange-money', country: 'CI', customer: { phoneNumber: from } },
    to: { amount: 5000, channel: 'wave', country: 'SN', customer: { phoneNumber: to } },
    merchantReference,
    callbackUrl,
  }
}

function assertPhoneNumberRefused(response: ApiResponse, field: string): void {
  assertErrorEnvelope(response, 422, 'validation_failed')
  assert.deepEqual(
    response.body.errors.map((entry: any) => [entry.field, entry.code]),
    [[field, 'wrong_country']],
  )
  const message: string = response.body.errors[0].message
  // It says what is wrong and how to fix it.
  assert.match(message, /\+\d+ .*is not .*calling code/, message)
  assert.match(message, /national form or starting with \+\d+/, message)
}

describeEachStore('phone numbers through the API', (store) => {
  let app: TestApp
  let merchant: IssuedMerchant
  let client: ApiClient
  before(async () => {
    app = await startApp(store())
    merchant = await app.createMerchant('Phone numbers merchant')
    client = app.client(merchant.sandbox)
  })
  after(() => app.close())

  test('a national number is recorded in E.164: the response, the details endpoint and the events', async () => {
    const created = await client.post('/api/v1/collect', collectBody('0700000011', 'phone-national'))
    assert.equal(created.status, 200, created.text)
    const record = created.body.data.collect
    assert.equal(record.customer.phoneNumber, '+2250700000011')
    const details = await client.get(`/api/v1/collect/${record.token}`)
    assert.equal(details.body.data.collect.customer.phoneNumber, '+2250700000011')
    const events = await client.get('/api/v1/events', { token: record.token })
    assert.equal(events.status, 200, events.text)
    assert.ok(events.body.data.events.length > 0)
    for (const event of events.body.data.events)
      assert.equal(event.data.collect.customer.phoneNumber, '+2250700000011', event.type)
  })

  test('digits without the + are read with their calling code', async () => {
    const created = await client.post('/api/v1/collect', collectBody('2250700000012', 'phone-digits'))
    assert.equal(created.status, 200, created.text)
    assert.equal(created.body.data.collect.customer.phoneNumber, '+2250700000012')
  })

  test('the sandbox outcome still follows the last three digits of a national number', async () => {
    const created = await client.post('/api/v1/collect', collectBody('0700000901', 'phone-sandbox-901'))
    assert.equal(created.status, 200, created.text)
    assert.equal(created.body.data.collect.status, 'failed')
    assert.equal(created.body.data.collect.customer.phoneNumber, '+2250700000901')
  })

  test('another country\u2019s calling code on a CI collect is a 422 on customer.phoneNumber, and nothing is created', async () => {
    const before = await countRows(app, 'operations', merchant.id)
    for (const [phoneNumber, reference] of [
      ['+221770000002', 'phone-senegal-plus'],
      ['221770000002', 'phone-senegal-digits'],
    ] as const) {
      const response = await client.post('/api/v1/collect', collectBody(phoneNumber, reference))
      assertPhoneNumberRefused(response, 'customer.phoneNumber')
      assert.ok(response.body.errors[0].message.includes('+225'), 'it names the country\u2019s calling code')
    }
    assert.equal(await countRows(app, 'operations', merchant.id), before)
  })

  test('transfer sides are each read for their own country', async () => {
    const created = await client.post(
      '/api/v1/transfer',
      transferBody('0700000021', '770000022', 'phone-transfer'),
    )
    assert.equal(created.status, 200, created.text)
    const transfer = created.body.data.transfer
    assert.equal(transfer.from.customer.phoneNumber, '+2250700000021')
    assert.equal(transfer.to.customer.phoneNumber, '+221770000022')
    const details = await client.get(`/api/v1/transfer/${transfer.token}`)
    assert.equal(details.body.data.transfer.to.customer.phoneNumber, '+221770000022')

    assertPhoneNumberRefused(
      await client.post(
        '/api/v1/transfer',
        transferBody('0700000023', '+2250700000024', 'phone-transfer-to'),
      ),
      'to.customer.phoneNumber',
    )
    assertPhoneNumberRefused(
      await client.post(
        '/api/v1/transfer',
        transferBody('+221770000025', '770000026', 'phone-transfer-from'),
      ),
      'from.customer.phoneNumber',
    )
  })

  describe('the phoneNumber list filter matches whatever form it is sent in', () => {
    let token: string
    let transferToken: string
    before(async () => {
      const created = await client.post('/api/v1/collect', collectBody('0700000031', 'phone-listed'))
      assert.equal(created.status, 200, created.text)
      token = created.body.data.collect.token
      // Another collect, so a filter that matched everything would show.
      await client.post('/api/v1/collect', collectBody('0700000032', 'phone-not-listed'))
      const transfer = await client.post(
        '/api/v1/transfer',
        transferBody('0700000033', '770000034', 'phone-listed-transfer'),
      )
      assert.equal(transfer.status, 200, transfer.text)
      transferToken = transfer.body.data.transfer.token
    })

    const tokensOf = (response: ApiResponse, dataKey: string) => {
      assert.equal(response.status, 200, response.text)
      return response.body.data[dataKey].map((record: any) => record.token)
    }

    for (const [title, query] of [
      ['E.164, encoded', { phoneNumber: '+2250700000031' }],
      ['digits with the calling code', { phoneNumber: '2250700000031' }],
      ['national form with the country filter', { phoneNumber: '0700000031', country: 'CI' }],
      ['E.164 with the country filter', { phoneNumber: '+2250700000031', country: 'CI' }],
    ] as const) {
      test(title, async () => {
        assert.deepEqual(tokensOf(await client.get('/api/v1/collect', query), 'collects'), [token])
      })
    }

    test('E.164 sent unencoded: its + arrives as a space', async () => {
      const response = await client.request('GET', '/api/v1/collect?phoneNumber=+2250700000031')
      assert.deepEqual(tokensOf(response, 'collects'), [token])
      const next = await client.request('GET', '/api/v1/collect?phoneNumber=+2250700000031&perPage=1')
      assert.equal(next.status, 200, next.text)
    })

    test('a transfer is found by either side, its to side in another country than the filter', async () => {
      const queries: Record<string, string>[] = [
        { phoneNumber: '+221770000034' },
        { phoneNumber: '770000034', country: 'SN' },
        { phoneNumber: '+221770000034', country: 'CI' },
        { phoneNumber: '0700000033', country: 'CI' },
      ]
      for (const query of queries) {
        const response = await client.get('/api/v1/transfer', query)
        assert.deepEqual(tokensOf(response, 'transfers'), [transferToken], JSON.stringify(query))
      }
    })

    test('a number no operation has matches nothing', async () => {
      assert.deepEqual(
        tokensOf(await client.get('/api/v1/collect', { phoneNumber: '+2250799999999' }), 'collects'),
        [],
      )
    })
  })
})
