import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { seedCopiesOfOperation } from '../src/store/bulk-seed.ts'
import { statusBlockSizes } from '../src/store/repositories/status-buckets.ts'
import { type ApiClient, manualClock, startApp, type TestApp } from './support/app.ts'
import { type Receiver, startReceiver } from './support/receiver.ts'
import { describeEachStore } from './support/stores.ts'

type Json = any

const delayMs = 5_000
const [smallBlock, largeBlock] = statusBlockSizes
/** Enough seeded copies that the failed collects span two large blocks of status counts. */
const seededCopies = largeBlock + 2 * smallBlock + 300

/**
 * CONTRACT.md, Lists: a list filtered on status gives exactly the matching operations, newest
 * first, with their true total, on every page. Pages filtered on status alone start from counts
 * kept per block of list positions, so these lists span several blocks, with statuses that change
 * after the operations were counted, and are checked page by page against the rows themselves.
 */
describeEachStore('lists filtered on status, across blocks of status counts', (store) => {
  let app: TestApp
  let client: ApiClient
  let merchantId: string
  let receiver: Receiver
  const clock = manualClock(Date.now() * 1000)

  async function collect(reference: string, wallet: number, suffix: string): Promise<Json> {
    const response = await client.post('/api/v1/collect', {
      amount: 1000,
      channel: 'orange-money',
      country: 'CI',
      customer: { phoneNumber: `2250700${String(wallet).padStart(3, '0')}${suffix}` },
      merchantReference: reference,
      callbackUrl: receiver.url('/callbacks'),
    })
    assert.equal(response.status, 200, response.text)
    return response.body.data.collect
  }

  before(async () => {
    receiver = await startReceiver()
    app = await startApp(store(), {
      clock,
      workers: 'manual',
      environment: { SANDBOX_DELAY_MS: String(delayMs) },
    })
    const merchant = await app.createMerchant('Filtered lists merchant')
    merchantId = merchant.id
    client = app.client(merchant.sandbox)
    // Oldest: a few of each outcome, then thousands of failed copies, then newer ones again, some
    // of them pending (900 succeeds after the delay, 902 fails after it).
    const suffixes = ['001', '901', '900', '902', '904']
    for (let index = 0; index < 10; index++) await collect(`early-${index}`, index, suffixes[index % 5]!)
    const template = await collect('template-failed', 999, '901')
    await seedCopiesOfOperation(app.context.store, template.token, seededCopies, 0)
    for (let index = 0; index < 40; index++) await collect(`late-${index}`, 100 + index, suffixes[index % 5]!)
  })
  after(async () => {
    await app.close()
    await receiver.close()
  })

  /** What the rows say: tokens of the merchant's sandbox collects with this status, newest first. */
  async function tokensWithStatus(status: string): Promise<string[]> {
    return (await rowsWithStatus(status)).map((row) => row.token)
  }

  async function rowsWithStatus(status: string) {
    return await app.db
      .selectFrom('operations')
      .select(['token', 'position'])
      .where('merchant_id', '=', merchantId)
      .where('mode', '=', 'sandbox')
      .where('kind', '=', 'collect')
      .where('status', '=', status)
      .orderBy('position', 'desc')
      .execute()
  }

  /**
   * The pages that start or end near where a block of either size begins, the first and the last,
   * each checked against the rows, at several page sizes.
   */
  async function checkPagesAroundBlockEdges(status: string): Promise<number> {
    const rows = await rowsWithStatus(status)
    const tokens = rows.map((row) => row.token)
    const edges = [0, rows.length - 1]
    for (let index = 1; index < rows.length; index++) {
      const [newer, older] = [rows[index - 1]!.position, rows[index]!.position]
      if (Math.floor(newer / largeBlock) !== Math.floor(older / largeBlock)) edges.push(index)
      else if (Math.floor(newer / smallBlock) !== Math.floor(older / smallBlock) && index % 3 === 0)
        edges.push(index)
    }
    let checked = 0
    for (const perPage of [7, 64, 100]) {
      const pages = new Set(
        edges.flatMap((index) => [Math.floor(index / perPage), Math.floor(index / perPage) + 1]),
      )
      for (const page of [...pages].filter((page) => page >= 1)) {
        const response = await client.get('/api/v1/collect', { status, perPage, page })
        assert.equal(response.status, 200, response.text)
        assert.equal(response.body.meta.pagination.total, tokens.length, `total, page ${page} of ${perPage}`)
        assert.deepEqual(
          response.body.data.collects.map((item: Json) => item.token),
          tokens.slice((page - 1) * perPage, page * perPage),
          `page ${page} of ${perPage}`,
        )
        checked++
      }
    }
    return checked
  }

  async function walkEveryPage(status: string, perPage: number): Promise<string[]> {
    const tokens: string[] = []
    const expectedTotal = (await tokensWithStatus(status)).length
    for (let page = 1; ; page++) {
      const response = await client.get('/api/v1/collect', { status, perPage, page })
      assert.equal(response.status, 200, response.text)
      assert.equal(response.body.meta.pagination.total, expectedTotal, `total on page ${page}`)
      const items = response.body.data.collects as Json[]
      assert.ok(items.every((item) => item.status === status))
      tokens.push(...items.map((item) => item.token))
      if (items.length < perPage) return tokens
    }
  }

  test('status=failed: the pages at the edges of blocks of both sizes, the first and the last, hold exactly the next failed collects', async () => {
    const failed = await rowsWithStatus('failed')
    assert.ok(failed.length > seededCopies, 'the seeded copies are failed too')
    assert.ok(failed[0]!.position >= largeBlock && failed.at(-1)!.position < largeBlock, 'two large blocks')
    assert.ok((await checkPagesAroundBlockEdges('failed')) > 50)
  })

  test('statuses changed after the operations were counted move between the counts', async () => {
    const pendingBefore = await tokensWithStatus('pending')
    assert.equal(pendingBefore.length, 20, 'the 900 and 902 collects wait for the delay')
    assert.deepEqual(await walkEveryPage('pending', 7), pendingBefore)
    const succeededBefore = (await tokensWithStatus('succeeded')).length

    clock.advance(delayMs + 100)
    for (let round = 0; round < 10 && (await app.workers.runDue()) > 0; round++);

    assert.deepEqual(await tokensWithStatus('pending'), [])
    const empty = await client.get('/api/v1/collect', { status: 'pending' })
    assert.deepEqual(empty.body.data.collects, [])
    assert.equal(empty.body.meta.pagination.total, 0)
    const succeeded = await tokensWithStatus('succeeded')
    assert.equal(succeeded.length, succeededBefore + 10)
    assert.deepEqual(await walkEveryPage('succeeded', 3), succeeded)
    await checkPagesAroundBlockEdges('failed')
  })

  test('a page past the end of a filtered list is empty, with the true total', async () => {
    const failed = await tokensWithStatus('failed')
    const response = await client.get('/api/v1/collect', { status: 'failed', perPage: 100, page: 1000 })
    assert.equal(response.status, 200, response.text)
    assert.deepEqual(response.body.data.collects, [])
    assert.equal(response.body.meta.pagination.total, failed.length)
  })

  test('counts read while a status changes between their two reads: the page is counted from the rows instead, still 200', async () => {
    const failed = await tokensWithStatus('failed')
    // What a change committed between the large-block read and the small-block read leaves: the
    // large blocks count operations the small ones no longer hold.
    const smallBlocks = () =>
      app.db
        .updateTable('status_buckets')
        .where('merchant_id', '=', merchantId)
        .where('status', '=', 'failed')
        .where('level', '=', 0)
    await smallBlocks()
      .set((eb) => ({ count: eb('count', '-', 1_000_000) }))
      .execute()
    try {
      const response = await client.get('/api/v1/collect', { status: 'failed', perPage: 100, page: 3 })
      assert.equal(response.status, 200, response.text)
      assert.equal(response.body.meta.pagination.total, failed.length)
      assert.deepEqual(
        response.body.data.collects.map((item: Json) => item.token),
        failed.slice(200, 300),
      )
    } finally {
      await smallBlocks()
        .set((eb) => ({ count: eb('count', '+', 1_000_000) }))
        .execute()
    }
  })
})
