import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { type ApiClient, type ApiResponse, startApp, type TestApp, testPublicBaseUrl } from './support/app.ts'
import { describeEachStore } from './support/stores.ts'

/** A response body as the client parsed it: untyped JSON, checked field by field below. */
type Json = ApiResponse['body']

interface Endpoint {
  method: 'GET' | 'POST'
  path: string
  returns: string
  dataKey: string
  message: string
}

/**
 * The spec's summary table (Endpoints, Summary) as the spec writes it, quirks included, plus
 * CONTRACT.md's POST synonym of the transactions list. Written out here, not imported from
 * src, so that this suite checks the service against the spec.
 */
const summaryRows = [
  // method, path, returns, data key, message
  ['POST', '/api/v1/transfer', 'one transfer record', 'transfer', 'Transfer !'],
  ['GET', '/api/v1/transfer', 'list of transfer records with meta', 'transfers', 'Transfers !'],
  ['GET', '/api/v1/transfer/{token}', 'one transfer record', 'transfer', 'Transfer !'],
  ['POST', '/api/v1/disbursement', 'one operation record', 'disbursement', 'Disbursement !'],
  ['GET', '/api/v1/disbursement', 'list with meta', 'disbursements', 'Disbursement !'],
  ['GET', '/api/v1/disbursement/{token}', 'one operation record', 'disbursement', 'Disbursement !'],
  ['POST', '/api/v1/collect', 'one operation record', 'collect', 'Collect !'],
  ['GET', '/api/v1/collect', 'list with meta', 'collects', 'Collects !'],
  ['GET', '/api/v1/collect/{token}', 'one operation record', 'collect', 'Collect !'],
  // "sample uses collect; field list says recharge", and the spec says: implement `recharge`.
  ['POST', '/api/v1/recharge', 'one operation record', 'recharge', 'Recharge !'],
  ['GET', '/api/v1/recharge', 'list with meta', 'recharges', 'Recharges !'],
  ['GET', '/api/v1/recharge/{token}', 'one operation record', 'recharge', 'Recharge !'],
  ['POST', '/api/v1/withdraw', 'one operation record', 'withdraw', 'Withdraw !'],
  // "disbursements (the items carry operation `withdraw`)"
  ['GET', '/api/v1/withdraw', 'list with meta', 'disbursements', 'Withdraw !'],
  ['GET', '/api/v1/withdraw/{token}', 'one operation record', 'withdraw', 'Withdraw !'],
  ['GET', '/api/v1/transaction', 'list of transaction records with meta', 'transactions', 'Transactions !'],
  // CONTRACT.md, Balances: "POST /api/v1/transaction is accepted as a synonym of the GET".
  ['POST', '/api/v1/transaction', 'list of transaction records with meta', 'transactions', 'Transactions !'],
] as const

const summary: readonly Endpoint[] = summaryRows.map(([method, path, returns, dataKey, message]) => ({
  method,
  path,
  returns,
  dataKey,
  message,
}))

type Kind = 'collect' | 'recharge' | 'disbursement' | 'withdraw' | 'transfer'

const callbackUrl = 'https://merchant.example/sika/callback'

/** One initiation per kind. No phone number ends in 900 to 906: the sandbox settles each at once. */
const initiations: Record<Kind, Json> = {
  collect: {
    amount: 5000,
    channel: 'orange-money',
    country: 'CI',
    customer: { fullName: 'Awa Kone', phoneNumber: '2250700000001', email: 'awa.kone@example.com' },
    merchantReference: 'contract-collect-1',
    callbackUrl,
    succeededUrl: 'https://merchant.example/paid',
  },
  // Two decimals in a currency that has them.
  recharge: {
    amount: 150.75,
    channel: 'mtn-momo',
    country: 'GH',
    customer: { fullName: 'Kwame Mensah', phoneNumber: '233240000001', email: 'kwame@example.com' },
    merchantReference: 'contract-recharge-1',
    callbackUrl,
  },
  // No fullName and no email: the response still returns all three customer fields as strings.
  disbursement: {
    amount: 2500,
    channel: 'wave',
    country: 'SN',
    customer: { phoneNumber: '221770000001' },
    merchantReference: 'contract-disbursement-1',
    callbackUrl,
  },
  withdraw: {
    amount: 2500.5,
    channel: 'mpesa',
    country: 'KE',
    customer: { fullName: 'Wanjiru Kamau', phoneNumber: '254712000001', email: 'wanjiru@example.com' },
    merchantReference: 'contract-withdraw-1',
    callbackUrl,
  },
  transfer: {
    from: {
      amount: 6000,
      channel: 'orange-money',
      country: 'CI',
      customer: { fullName: 'Awa Kone', phoneNumber: '2250700000002', email: 'awa.kone@example.com' },
    },
    to: {
      amount: 6000,
      channel: 'wave',
      country: 'SN',
      customer: { fullName: 'Moussa Diop', phoneNumber: '221770000002' },
    },
    merchantReference: 'contract-transfer-1',
    callbackUrl,
  },
}

const currencyOf: Record<string, string> = { CI: 'XOF', SN: 'XOF', GH: 'GHS', KE: 'KES' }

const tokenShape = /^[a-z0-9]{5}(-[a-z0-9]{5}){4}$/
const microsecondDate = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/
const transactionReference = /^TX\d{8}\.[a-z0-9]{5}\.\d{8}$/
const statuses = ['pending', 'succeeded', 'failed', 'canceled', 'error']
const kinds = ['collect', 'recharge', 'disbursement', 'withdraw', 'transfer']

function assertTypes(value: Json, types: Record<string, string>, where: string): void {
  assert.equal(typeof value, 'object', `${where} is an object`)
  assert.notEqual(value, null, `${where} is an object`)
  for (const [field, type] of Object.entries(types)) {
    assert.equal(typeof value[field], type, `${where}.${field} is a ${type}`)
  }
}

/** Transfer side fields, which are also the money fields of an operation record. */
function assertMoneyFields(value: Json, where: string): void {
  assertTypes(value, { amount: 'number', cashAmount: 'number', transactionAmount: 'number' }, where)
  assertTypes(
    value.pricing,
    { percentageFee: 'number', additionalFee: 'number', feesAmount: 'number', supportedByAccount: 'boolean' },
    `${where}.pricing`,
  )
  assertTypes(
    value.customer,
    { fullName: 'string', phoneNumber: 'string', email: 'string' },
    `${where}.customer`,
  )
}

function assertRecordHead(record: Json, kind: Kind, where: string): void {
  assert.equal(record.operation, kind, `${where}.operation`)
  assert.match(record.token, tokenShape, `${where}.token`)
  assert.ok(statuses.includes(record.status), `${where}.status is a status: ${record.status}`)
  assertTypes(record, { merchantReference: 'string', initiationDate: 'string', currency: 'string' }, where)
  assert.match(record.initiationDate, microsecondDate, `${where}.initiationDate`)
  if ('redirectUrl' in record) assert.equal(typeof record.redirectUrl, 'string', `${where}.redirectUrl`)
}

function assertOperationRecord(record: Json, kind: Kind, where: string): void {
  assertRecordHead(record, kind, where)
  assertMoneyFields(record, where)
  assertTypes(record, { channel: 'string', country: 'string' }, where)
}

function assertTransferRecord(record: Json, where: string): void {
  assertRecordHead(record, 'transfer', where)
  assertMoneyFields(record.from, `${where}.from`)
  assertMoneyFields(record.to, `${where}.to`)
}

function assertTransactionRecord(record: Json, where: string): void {
  assert.match(record.reference, transactionReference, `${where}.reference`)
  assert.ok(kinds.includes(record.operation), `${where}.operation is a kind: ${record.operation}`)
  assertTypes(record, { amount: 'number', type: 'string', status: 'string', date: 'string' }, where)
  assert.ok(['cash-in', 'cash-out', 'reversal'].includes(record.type), `${where}.type: ${record.type}`)
  assert.ok(['pending', 'succeeded', 'canceled'].includes(record.status), `${where}.status: ${record.status}`)
  assert.match(record.date, microsecondDate, `${where}.date`)
  assert.equal(
    record.reference.slice(2, 10),
    record.date.slice(0, 10).replaceAll('-', ''),
    `${where}: TX<yyyymmdd>`,
  )
}

function assertRecord(record: Json, kind: Kind | 'transaction', where: string): void {
  if (kind === 'transaction') assertTransactionRecord(record, where)
  else if (kind === 'transfer') assertTransferRecord(record, where)
  else assertOperationRecord(record, kind, where)
}

/** One side as it was asked for: amount, customer (absent names are empty strings), route. */
function assertSideMatches(side: Json, request: Json, where: string): void {
  assert.equal(side.amount, request.amount, `${where}.amount`)
  assert.deepEqual(
    side.customer,
    {
      fullName: request.customer.fullName ?? '',
      // Recorded in E.164: the requests here send international numbers without their +.
      phoneNumber: `+${request.customer.phoneNumber.replace(/^\+/, '')}`,
      email: request.customer.email ?? '',
    },
    `${where}.customer`,
  )
  assert.equal(side.channel, request.channel, `${where}.channel`)
  assert.equal(side.country, request.country, `${where}.country`)
  assert.equal(side.currency ?? currencyOf[request.country], currencyOf[request.country], `${where}.currency`)
}

function assertMatchesRequest(record: Json, kind: Kind, request: Json): void {
  assert.equal(record.merchantReference, request.merchantReference, 'merchantReference is the value sent')
  assert.equal(record.status, 'succeeded', 'the sandbox settles this phone number at once')
  if (kind === 'transfer') {
    assertSideMatches(record.from, request.from, 'from')
    assertSideMatches(record.to, request.to, 'to')
    assert.equal(record.currency, currencyOf[request.from.country], 'currency')
  } else {
    assertSideMatches(record, request, kind)
  }
}

function assertPageUrl(url: string, listPath: string, page: number, where: string): void {
  const parsed = new URL(url)
  assert.equal(parsed.origin, testPublicBaseUrl, `${where} is absolute on PUBLIC_BASE_URL`)
  assert.equal(parsed.pathname, listPath, `${where} is the list endpoint`)
  assert.equal(parsed.searchParams.get('page'), String(page), `${where} has page=${page}`)
}

/** The spec's first page: perPage 10, currentPage 1; CONTRACT.md adds next and previous. */
function assertFirstPagePagination(pagination: Json, listPath: string): void {
  assertTypes(
    pagination,
    {
      total: 'number',
      perPage: 'number',
      currentPage: 'number',
      firstPage: 'number',
      firstPageUrl: 'string',
      pages: 'object',
      lastPage: 'number',
      lastPageUrl: 'string',
    },
    'meta.pagination',
  )
  assert.ok(pagination.total > 0, 'the list is not empty')
  assert.equal(pagination.perPage, 10)
  assert.equal(pagination.currentPage, 1)
  assert.equal(pagination.firstPage, 1)
  assert.equal(pagination.lastPage, Math.ceil(pagination.total / pagination.perPage))
  assertPageUrl(pagination.firstPageUrl, listPath, 1, 'firstPageUrl')
  assertPageUrl(pagination.lastPageUrl, listPath, pagination.lastPage, 'lastPageUrl')
  assert.ok('1' in pagination.pages, 'pages holds the current page')
  for (const [key, url] of Object.entries(pagination.pages)) {
    assert.match(key, /^\d+$/, 'pages is keyed by page number')
    assertPageUrl(url as string, listPath, Number(key), `pages[${key}]`)
  }
  assert.equal(pagination.previousPageUrl, null, 'no previous page on the first')
  if (pagination.lastPage > 1) assertPageUrl(pagination.nextPageUrl, listPath, 2, 'nextPageUrl')
  else assert.equal(pagination.nextPageUrl, null)
}

describeEachStore('the spec\u2019s summary table', (store) => {
  let app: TestApp
  let client: ApiClient
  const initiated = new Map<Kind, Promise<ApiResponse>>()

  before(async () => {
    app = await startApp(store())
    client = app.client((await app.createMerchant('Contract merchant')).sandbox)
  })
  after(() => app.close())

  /** The kind's initiation, sent once and shared by the tests that need a record of it. */
  const initiate = (kind: Kind): Promise<ApiResponse> => {
    let response = initiated.get(kind)
    if (!response) {
      response = client.post(`/api/v1/${kind}`, initiations[kind])
      initiated.set(kind, response)
    }
    return response
  }
  const initiatedRecord = async (kind: Kind): Promise<Json> => {
    const response = await initiate(kind)
    assert.equal(response.status, 200, response.text)
    const key = summary.find((row) => row.method === 'POST' && row.path === `/api/v1/${kind}`)!.dataKey
    return response.body.data[key]
  }

  for (const endpoint of summary) {
    const kind = endpoint.path.split('/')[3] as Kind | 'transaction'
    const isList = endpoint.returns.startsWith('list')
    const isDetails = endpoint.path.endsWith('/{token}')

    test(`${endpoint.method} ${endpoint.path} answers "${endpoint.message}" under data.${endpoint.dataKey}`, async () => {
      let response: ApiResponse
      let sent: Json
      if (kind === 'transaction') {
        await initiatedRecord('withdraw') // a cash-out beside the opening cash-ins
        response =
          endpoint.method === 'GET' ? await client.get(endpoint.path) : await client.post(endpoint.path)
      } else if (endpoint.method === 'POST') {
        sent = initiations[kind]
        response = await initiate(kind)
      } else if (isDetails) {
        const { token } = await initiatedRecord(kind)
        response = await client.get(endpoint.path.replace('{token}', token))
      } else {
        await initiatedRecord(kind)
        response = await client.get(endpoint.path)
      }

      assert.equal(response.status, 200, response.text)
      const body = response.body
      assert.equal(body.success, true)
      assert.equal(body.statusCode, 200)
      assert.equal(body.message, endpoint.message)
      assert.deepEqual(Object.keys(body.data), [endpoint.dataKey], 'data holds exactly the documented key')
      const data = body.data[endpoint.dataKey]

      if (!isList) {
        assert.equal('meta' in body, false, 'meta is on list responses only')
        assertRecord(data, kind as Kind, `data.${endpoint.dataKey}`)
        if (sent) assertMatchesRequest(data, kind as Kind, sent)
        if (isDetails)
          assert.deepEqual(data, await initiatedRecord(kind as Kind), 'the record initiation returned')
        return
      }

      assert.ok(Array.isArray(data), `data.${endpoint.dataKey} is an array`)
      assert.ok(data.length > 0, 'the list shows the operations made')
      data.forEach((item: Json, index: number) => {
        assertRecord(item, kind, `data.${endpoint.dataKey}[${index}]`)
      })
      assertFirstPagePagination(body.meta.pagination, endpoint.path)
      if (kind === 'transaction') {
        const again = await client.get('/api/v1/transaction')
        assert.deepEqual(body, again.body, 'the same page as GET /api/v1/transaction')
        assert.ok(
          data.some((item: Json) => item.type === 'cash-out' && item.operation === 'withdraw'),
          'the withdraw is a cash-out',
        )
      } else {
        const made = await initiatedRecord(kind)
        assert.deepEqual(
          data.find((item: Json) => item.token === made.token),
          made,
          'the list shows the record as initiation returned it',
        )
      }
    })
  }
})
