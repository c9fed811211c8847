import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { type ApiClient, type ApiResponse, startApp, type TestApp, testPublicBaseUrl } from './support/app.ts'
import { describeEachStore } from './support/stores.ts'

/** A response body: untyped JSON. */
type Json = ApiResponse['body']
type Query = Record<string, string | number>

const callbackUrl = 'https://merchant.example/sika/callback'
const collectCount = 25

/** Routes cycle with period 4 and sandbox outcomes with period 5, so filters cut different sets. */
const routes = [
  ['orange-money', 'CI'],
  ['wave', 'SN'],
  ['mtn-momo', 'CI'],
  ['orange-money', 'SN'],
] as const
/** CONTRACT.md, Sandbox: the phone number's last three digits choose the outcome. */
const outcomes = [
  ['001', 'succeeded'],
  ['901', 'failed'],
  ['002', 'succeeded'],
  ['904', 'error'],
  ['900', 'pending'],
] as const
/** The CI collects with index % 5 === 0 share one wallet (it ends in 001: succeeded). */
const sharedPhoneNumber = '2250711111001'

/** A wallet of the route's country: numbers are read for the side's country (CONTRACT.md, Errors). */
function walletOf(index: number, country: string, suffix: string): string {
  if (country !== 'CI') return `221770${String(index).padStart(3, '0')}${suffix}`
  return index % outcomes.length === 0
    ? sharedPhoneNumber
    : `2250700${String(index).padStart(3, '0')}${suffix}`
}

function collectBody(index: number) {
  const [channel, country] = routes[index % routes.length]!
  const [suffix] = outcomes[index % outcomes.length]!
  const phoneNumber = walletOf(index, country, suffix)
  return {
    amount: 1000 + index,
    channel,
    country,
    customer: { phoneNumber },
    merchantReference: `list-${String(index).padStart(2, '0')}`,
    callbackUrl,
  }
}

/** Cash-outs beside the collects, so the transactions list holds every type of status. */
const payouts = [
  ['disbursement', '2250700100001'], // succeeded: a posted cash-out
  ['disbursement', '2250700100900'], // pending: a hold
  ['disbursement', '2250700100901'], // failed: a released hold (canceled)
  ['withdraw', '2250700200001'], // succeeded
] as const

interface Created {
  index: number
  token: string
  status: string
  initiationDate: string
  body: ReturnType<typeof collectBody>
}

/** An absolute URL of a list page, in parts that compare whatever the order of the query. */
function link(url: string) {
  const parsed = new URL(url)
  return { origin: parsed.origin, path: parsed.pathname, query: Object.fromEntries(parsed.searchParams) }
}

function pageLink(path: string, query: Record<string, string | number>) {
  return {
    origin: testPublicBaseUrl,
    path,
    query: Object.fromEntries(Object.entries(query).map(([key, value]) => [key, String(value)])),
  }
}

function queryText(query: Query): string {
  const pairs = Object.entries(query).map(([key, value]): [string, string] => [key, String(value)])
  return new URLSearchParams(pairs).toString()
}

/** The path and query of an absolute URL, to follow it on the test server. */
function follow(url: string): string {
  const parsed = new URL(url)
  assert.equal(parsed.origin, testPublicBaseUrl)
  return `${parsed.pathname}${parsed.search}`
}

function assertQueryRejected(response: ApiResponse, field: string): void {
  assert.equal(response.status, 422, response.text.slice(0, 300))
  assert.equal(response.body.success, false)
  assert.equal(response.body.statusCode, 422)
  assert.equal(response.body.code, 'validation_failed')
  assert.deepEqual(
    response.body.errors.map((entry: Json) => entry.field),
    [field],
    JSON.stringify(response.body.errors),
  )
}

describeEachStore('lists: pages, order and filters', (store) => {
  let app: TestApp
  let client: ApiClient
  /** The collects in the order they were made (oldest first). */
  const created: Created[] = []
  /** Newest first: the order every list answers in. */
  const newestFirst = (entries: Created[]) => entries.map((entry) => entry.token).reverse()

  before(async () => {
    app = await startApp(store())
    client = app.client((await app.createMerchant('Lists merchant')).sandbox)
    for (let index = 0; index < collectCount; index++) {
      const body = collectBody(index)
      const response = await client.post('/api/v1/collect', body)
      assert.equal(response.status, 200, response.text)
      const record = response.body.data.collect
      assert.equal(record.status, outcomes[index % outcomes.length]![1], `collect ${index}`)
      created.push({
        index,
        token: record.token,
        status: record.status,
        initiationDate: record.initiationDate,
        body,
      })
    }
    for (const [kind, phoneNumber] of payouts) {
      const response = await client.post(`/api/v1/${kind}`, {
        amount: 2000,
        channel: 'orange-money',
        country: 'CI',
        customer: { phoneNumber },
        merchantReference: `payout-${phoneNumber}`,
        callbackUrl,
      })
      assert.equal(response.status, 200, response.text)
    }
  })
  after(() => app.close())

  const listCollects = (query: Query = {}) => client.get('/api/v1/collect', query)

  test('page and perPage default to 1 and 10', async () => {
    const response = await listCollects()
    assert.equal(response.status, 200, response.text)
    const pagination = response.body.meta.pagination
    assert.equal(pagination.currentPage, 1)
    assert.equal(pagination.perPage, 10)
    assert.equal(pagination.total, collectCount)
    assert.equal(pagination.lastPage, 3)
    assert.deepEqual(
      response.body.data.collects.map((item: Json) => item.token),
      newestFirst(created).slice(0, 10),
    )
  })

  test('newest first and stable: following nextPageUrl shows every operation exactly once', async () => {
    const tokens: string[] = []
    const dates: string[] = []
    let path: string | null = '/api/v1/collect?perPage=10'
    for (let pages = 0; path !== null; pages++) {
      assert.ok(pages < 5, 'three pages, not more')
      const response: ApiResponse = await client.get(path)
      assert.equal(response.status, 200, response.text)
      for (const item of response.body.data.collects) {
        tokens.push(item.token)
        dates.push(item.initiationDate)
      }
      const next: string | null = response.body.meta.pagination.nextPageUrl
      path = next === null ? null : follow(next)
    }
    assert.deepEqual(tokens, newestFirst(created), 'each operation once, newest first')
    assert.equal(new Set(tokens).size, collectCount, 'tokens distinct across pages')
    for (let index = 1; index < dates.length; index++) {
      assert.ok(
        dates[index - 1]! > dates[index]!,
        `initiationDate descends: ${dates[index - 1]} > ${dates[index]}`,
      )
    }
    const again = await listCollects({ page: 2, perPage: 10 })
    assert.deepEqual(
      again.body.data.collects.map((item: Json) => item.token),
      tokens.slice(10, 20),
      'asking for a page twice gives the same page',
    )
  })

  test('meta.pagination of a middle page, field by field', async () => {
    const response = await listCollects({ page: 2, perPage: 10 })
    const pagination = response.body.meta.pagination
    const at = (page: number) => pageLink('/api/v1/collect', { page, perPage: 10 })
    assert.equal(pagination.total, 25)
    assert.equal(pagination.perPage, 10)
    assert.equal(pagination.currentPage, 2)
    assert.equal(pagination.firstPage, 1)
    assert.equal(pagination.lastPage, Math.ceil(25 / 10))
    assert.deepEqual(link(pagination.firstPageUrl), at(1))
    assert.deepEqual(link(pagination.lastPageUrl), at(3))
    assert.deepEqual(link(pagination.nextPageUrl), at(3))
    assert.deepEqual(link(pagination.previousPageUrl), at(1))
    assert.deepEqual(Object.keys(pagination.pages), ['1', '2', '3'])
    for (const [page, url] of Object.entries(pagination.pages))
      assert.deepEqual(link(url as string), at(Number(page)))
  })

  for (const [page, first, last] of [
    [1, 1, 10],
    [13, 8, 17],
    [25, 16, 25],
  ] as const) {
    test(`pages holds the 10 page numbers nearest the current one: page ${page} of 25 shows ${first} to ${last}`, async () => {
      const response = await listCollects({ page, perPage: 1 })
      const pagination = response.body.meta.pagination
      assert.equal(pagination.lastPage, 25)
      const expected = Array.from({ length: last - first + 1 }, (_, offset) => String(first + offset))
      assert.deepEqual(Object.keys(pagination.pages), expected)
      for (const [number, url] of Object.entries(pagination.pages)) {
        assert.deepEqual(link(url as string), pageLink('/api/v1/collect', { page: number, perPage: 1 }))
      }
      assert.deepEqual(
        response.body.data.collects.map((item: Json) => item.token),
        [newestFirst(created)[page - 1]],
      )
    })
  }

  test('nextPageUrl and previousPageUrl are null at the ends', async () => {
    const first = (await listCollects({ page: 1, perPage: 10 })).body.meta.pagination
    assert.equal(first.previousPageUrl, null)
    assert.deepEqual(link(first.nextPageUrl), pageLink('/api/v1/collect', { page: 2, perPage: 10 }))
    const last = (await listCollects({ page: 3, perPage: 10 })).body.meta.pagination
    assert.equal(last.nextPageUrl, null)
    assert.deepEqual(link(last.previousPageUrl), pageLink('/api/v1/collect', { page: 2, perPage: 10 }))
    const only = (await listCollects({ perPage: 100 })).body.meta.pagination
    assert.equal(only.nextPageUrl, null)
    assert.equal(only.previousPageUrl, null)
  })

  test('a page past the end is an empty list with the true total', async () => {
    const response = await listCollects({ page: 4, perPage: 10 })
    assert.equal(response.status, 200, response.text)
    assert.deepEqual(response.body.data.collects, [])
    const pagination = response.body.meta.pagination
    assert.equal(pagination.total, 25)
    assert.equal(pagination.currentPage, 4)
    assert.equal(pagination.lastPage, 3)
    assert.equal(pagination.nextPageUrl, null)
    const filtered = await listCollects({ status: 'failed', page: 9, perPage: 10 })
    assert.deepEqual(filtered.body.data.collects, [])
    assert.equal(filtered.body.meta.pagination.total, 5)
  })

  /** CONTRACT.md, Lists: each filter, with the collects it must select. */
  const filters: {
    name: string
    query: () => Query
    selects: (entry: Created) => boolean
  }[] = [
    {
      name: 'status=failed',
      query: () => ({ status: 'failed' }),
      selects: (entry) => entry.status === 'failed',
    },
    {
      name: 'status=pending',
      query: () => ({ status: 'pending' }),
      selects: (entry) => entry.status === 'pending',
    },
    {
      name: 'merchantReference',
      query: () => ({ merchantReference: 'list-07' }),
      selects: (entry) => entry.index === 7,
    },
    {
      name: 'phoneNumber',
      query: () => ({ phoneNumber: sharedPhoneNumber }),
      selects: (entry) => entry.body.customer.phoneNumber === sharedPhoneNumber,
    },
    {
      // Stored in E.164: the filter matches in either form, and in national form for its country.
      name: 'phoneNumber in E.164',
      query: () => ({ phoneNumber: `+${sharedPhoneNumber}` }),
      selects: (entry) => entry.body.customer.phoneNumber === sharedPhoneNumber,
    },
    {
      name: 'phoneNumber in national form, with country',
      query: () => ({ phoneNumber: sharedPhoneNumber.slice(3), country: 'CI' }),
      selects: (entry) => entry.body.customer.phoneNumber === sharedPhoneNumber,
    },
    {
      name: 'channel',
      query: () => ({ channel: 'wave' }),
      selects: (entry) => entry.body.channel === 'wave',
    },
    { name: 'country', query: () => ({ country: 'SN' }), selects: (entry) => entry.body.country === 'SN' },
    {
      name: 'from, inclusive',
      query: () => ({ from: created[10]!.initiationDate }),
      selects: (entry) => entry.index >= 10,
    },
    {
      name: 'to, exclusive',
      query: () => ({ to: created[20]!.initiationDate }),
      selects: (entry) => entry.index < 20,
    },
    {
      name: 'from and to',
      query: () => ({ from: created[10]!.initiationDate, to: created[20]!.initiationDate }),
      selects: (entry) => entry.index >= 10 && entry.index < 20,
    },
    {
      name: 'status and channel together',
      query: () => ({ status: 'succeeded', channel: 'orange-money' }),
      selects: (entry) => entry.status === 'succeeded' && entry.body.channel === 'orange-money',
    },
  ]

  for (const filter of filters) {
    test(`filter ${filter.name}: exactly the matching operations, newest first, with their total`, async () => {
      const expected = newestFirst(created.filter(filter.selects))
      assert.ok(expected.length > 0 && expected.length < collectCount, 'the filter selects a proper subset')
      const response = await listCollects({ ...filter.query(), perPage: 100 })
      assert.equal(response.status, 200, response.text)
      assert.deepEqual(
        response.body.data.collects.map((item: Json) => item.token),
        expected,
      )
      assert.equal(response.body.meta.pagination.total, expected.length)
    })
  }

  test('page URLs keep perPage and the filters, and following them walks the filtered list', async () => {
    const filter = { status: 'succeeded', channel: 'orange-money' }
    const expected = newestFirst(
      created.filter((entry) => entry.status === 'succeeded' && entry.body.channel === 'orange-money'),
    )
    const lastPage = Math.ceil(expected.length / 2)
    assert.ok(lastPage >= 3, 'enough pages to have a middle one')
    const response = await listCollects({ ...filter, perPage: 2, page: 2 })
    const pagination = response.body.meta.pagination
    const at = (page: number) => pageLink('/api/v1/collect', { ...filter, page, perPage: 2 })
    assert.equal(pagination.total, expected.length)
    assert.deepEqual(link(pagination.firstPageUrl), at(1))
    assert.deepEqual(link(pagination.lastPageUrl), at(lastPage))
    assert.deepEqual(link(pagination.nextPageUrl), at(3))
    assert.deepEqual(link(pagination.previousPageUrl), at(1))
    for (const [page, url] of Object.entries(pagination.pages))
      assert.deepEqual(link(url as string), at(Number(page)))

    const tokens: string[] = []
    let path: string | null = follow(pagination.firstPageUrl)
    for (let pages = 0; path !== null; pages++) {
      assert.ok(pages <= lastPage, 'the walk ends')
      const page: ApiResponse = await client.get(path)
      tokens.push(...page.body.data.collects.map((item: Json) => item.token))
      const next: string | null = page.body.meta.pagination.nextPageUrl
      path = next === null ? null : follow(next)
    }
    assert.deepEqual(tokens, expected)
  })

  /** CONTRACT.md, Lists: "A bad query value is a 422". */
  for (const [query, field] of [
    [{ perPage: 0 }, 'perPage'],
    [{ perPage: 101 }, 'perPage'],
    [{ perPage: 'ten' }, 'perPage'],
    [{ page: 0 }, 'page'],
    [{ page: 'abc' }, 'page'],
    [{ sort: 'asc' }, 'sort'],
    [{ status: 'done' }, 'status'],
    [{ country: 'ci' }, 'country'],
    [{ phoneNumber: 'abc' }, 'phoneNumber'],
    [{ from: 'yesterday' }, 'from'],
    [{ from: '2026-02-30' }, 'from'],
    [{ to: '2026-13-01T00:00:00Z' }, 'to'],
  ] as const) {
    test(`GET /api/v1/collect?${queryText(query)} is a 422 naming ${field}`, async () => {
      assertQueryRejected(await listCollects(query), field)
    })
  }

  test('the recharge list pages with page=<n> on /api/v1/recharge, not with recharge=<n>', async () => {
    const response = await client.get('/api/v1/recharge', { perPage: 2 })
    assert.equal(response.status, 200, response.text)
    const pagination = response.body.meta.pagination
    assert.equal(pagination.total, 5, 'the five opening balances')
    assert.equal(pagination.lastPage, 3)
    const urls = [
      pagination.firstPageUrl,
      pagination.lastPageUrl,
      pagination.nextPageUrl,
      ...Object.values(pagination.pages),
    ]
    for (const url of urls) {
      const parts = link(url as string)
      assert.equal(parts.path, '/api/v1/recharge', url)
      assert.match(parts.query.page ?? '', /^[123]$/, url)
      assert.equal('recharge' in parts.query, false, url)
    }
    const references: string[] = []
    for (let page = 1; page <= pagination.lastPage; page++) {
      const each = await client.get('/api/v1/recharge', { perPage: 2, page })
      references.push(...each.body.data.recharges.map((item: Json) => item.merchantReference))
    }
    assert.deepEqual(
      references.sort(),
      ['GHS', 'KES', 'UGX', 'XAF', 'XOF'].map((currency) => `opening-balance-${currency}`),
    )
  })

  test('newest first also when operations are made concurrently', async () => {
    const concurrent = app.client((await app.createMerchant('Concurrent merchant')).sandbox)
    const responses = await Promise.all(
      Array.from({ length: 24 }, (_, index) =>
        concurrent.post('/api/v1/collect', { ...collectBody(0), merchantReference: `concurrent-${index}` }),
      ),
    )
    for (const response of responses) assert.equal(response.status, 200, response.text)
    const descending = (dates: string[], what: string) => {
      for (let index = 1; index < dates.length; index++) {
        assert.ok(
          dates[index - 1]! >= dates[index]!,
          `${what} ${index}: ${dates[index - 1]} before ${dates[index]}`,
        )
      }
    }
    const collects = await concurrent.get('/api/v1/collect', { perPage: 100 })
    assert.equal(collects.body.data.collects.length, 24)
    descending(
      collects.body.data.collects.map((item: Json) => item.initiationDate),
      'collect',
    )
    const transactions = await concurrent.get('/api/v1/transaction', { perPage: 100 })
    assert.equal(transactions.body.data.transactions.length, 5 + 24)
    descending(
      transactions.body.data.transactions.map((item: Json) => item.date),
      'transaction',
    )
  })

  // The transactions list: the merchant's balance movements (CONTRACT.md, Balances and the ledger).

  /** 5 opening recharges and 10 succeeded collects (cash-in), 4 payouts (cash-out). */
  const expectedTotal = 5 + 10 + payouts.length
  let all: Json[] = []
  const listTransactions = (query: Query = {}) => client.get('/api/v1/transaction', query)
  const allTransactions = async () => {
    if (all.length === 0) {
      const response = await listTransactions({ perPage: 100 })
      assert.equal(response.status, 200, response.text)
      all = response.body.data.transactions
    }
    return all
  }

  test('the transactions list: every balance movement once, newest first', async () => {
    const transactions = await allTransactions()
    assert.equal(transactions.length, expectedTotal)
    const sequences = transactions.map((item: Json) => Number(item.reference.split('.')[2]))
    assert.deepEqual(
      sequences,
      Array.from({ length: expectedTotal }, (_, index) => expectedTotal - index),
      'the per-merchant sequence, newest first',
    )
    for (let index = 1; index < transactions.length; index++) {
      assert.ok(transactions[index - 1].date >= transactions[index].date, 'dates descend')
    }
    const page = await listTransactions({ type: 'cash-in', perPage: 5, page: 2 })
    const pagination = page.body.meta.pagination
    const at = (number: number) =>
      pageLink('/api/v1/transaction', { type: 'cash-in', page: number, perPage: 5 })
    assert.equal(pagination.total, 15)
    assert.deepEqual(link(pagination.nextPageUrl), at(3))
    assert.deepEqual(link(pagination.previousPageUrl), at(1))
    assert.deepEqual(link(pagination.lastPageUrl), at(3))
  })

  const transactionFilters: {
    name: string
    query: () => Query
    selects: (item: Json, index: number) => boolean
    count?: number
  }[] = [
    {
      name: 'type=cash-in',
      query: () => ({ type: 'cash-in' }),
      selects: (item) => item.type === 'cash-in',
      count: 15,
    },
    {
      name: 'type=cash-out',
      query: () => ({ type: 'cash-out' }),
      selects: (item) => item.type === 'cash-out',
      count: 4,
    },
    {
      name: 'operation=recharge',
      query: () => ({ operation: 'recharge' }),
      selects: (item) => item.operation === 'recharge',
      count: 5,
    },
    {
      name: 'operation=disbursement',
      query: () => ({ operation: 'disbursement' }),
      selects: (item) => item.operation === 'disbursement',
      count: 3,
    },
    {
      name: 'status=pending (a hold)',
      query: () => ({ status: 'pending' }),
      selects: (item) => item.status === 'pending',
      count: 1,
    },
    {
      name: 'status=canceled (a released hold)',
      query: () => ({ status: 'canceled' }),
      selects: (item) => item.status === 'canceled',
      count: 1,
    },
    {
      name: 'type=cash-out and status=succeeded',
      query: () => ({ type: 'cash-out', status: 'succeeded' }),
      selects: (item) => item.type === 'cash-out' && item.status === 'succeeded',
      count: 2,
    },
    // `all` is newest first: index 12 is older than index 4.
    { name: 'from, inclusive', query: () => ({ from: all[12].date }), selects: (_, index) => index <= 12 },
    { name: 'to, exclusive', query: () => ({ to: all[4].date }), selects: (_, index) => index > 4 },
    {
      name: 'from and to',
      query: () => ({ from: all[12].date, to: all[4].date }),
      selects: (_, index) => index > 4 && index <= 12,
    },
  ]

  for (const filter of transactionFilters) {
    test(`transactions filter ${filter.name}: exactly the matching movements`, async () => {
      const transactions = await allTransactions()
      const expected = transactions.filter(filter.selects).map((item: Json) => item.reference)
      if (filter.count !== undefined) assert.equal(expected.length, filter.count, 'the ledger as made')
      assert.ok(expected.length > 0 && expected.length < transactions.length, 'a proper subset')
      const response = await listTransactions({ ...filter.query(), perPage: 100 })
      assert.equal(response.status, 200, response.text)
      assert.deepEqual(
        response.body.data.transactions.map((item: Json) => item.reference),
        expected,
      )
      assert.equal(response.body.meta.pagination.total, expected.length)
    })
  }

  for (const [query, field] of [
    [{ type: 'payment' }, 'type'],
    [{ operation: 'payment' }, 'operation'],
    [{ status: 'failed' }, 'status'],
    [{ from: 'last week' }, 'from'],
    [{ perPage: 0 }, 'perPage'],
    [{ phoneNumber: '2250700000001' }, 'phoneNumber'],
    [{ to: '2026-02-29' }, 'to'],
  ] as const) {
    test(`GET /api/v1/transaction?${queryText(query)} is a 422 naming ${field}`, async () => {
      assertQueryRejected(await listTransactions(query), field)
    })
  }

  test('POST /api/v1/transaction answers what the GET answers, query included', async () => {
    const path = '/api/v1/transaction?type=cash-out&perPage=2&page=2'
    const posted = await client.request('POST', path)
    assert.equal(posted.status, 200, posted.text)
    assert.deepEqual(posted.body, (await client.get(path)).body)
    assert.equal(posted.body.meta.pagination.total, 4)
  })

  // CONTRACT.md, Errors: "Unknown body fields are a 422 (unknown_field): a typo must not pass silently."
  test('POST /api/v1/transaction with a body field is a 422 unknown_field, not silently ignored', async () => {
    const response = await client.post('/api/v1/transaction', { perPage: 2 })
    assert.equal(response.status, 422, response.text.slice(0, 300))
    assert.equal(response.body.code, 'validation_failed')
    assert.deepEqual(
      response.body.errors.map((entry: Json) => [entry.field, entry.code]),
      [['perPage', 'unknown_field']],
    )
  })
})
