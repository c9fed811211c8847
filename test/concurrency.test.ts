import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { IssuedMerchant } from '../src/app/merchants.ts'
import { startApp, type TestApp } from './support/app.ts'
import {
  accountOf,
  assertBalanceMatchesEntries,
  availableOf,
  entriesOfOperation,
  readBalances,
  readLedgerEntries,
  xofBalance,
} from './support/ledger.ts'
import { describeEachStore } from './support/stores.ts'

/**
 * CONTRACT.md, Balances ("never goes below zero", "not enough available: 422
 * insufficient_balance, and nothing is created") and Idempotency ("concurrent duplicates
 * create exactly one operation"), with every request in flight at once.
 */

const environment = { RATE_LIMIT_PER_SECOND: '0', SANDBOX_DELAY_MS: '3600000', OPERATION_TTL: '2h' }
const callbackUrl = 'http://127.0.0.1:9/callback'
const phone = (suffix: string) => `2250700${suffix}`

const disbursementAmount = 10_000
/** orange-money disbursement: 1 % borne by the merchant. */
const disbursementCashAmount = 10_100
const openingBalance = 1_000_000

/** The withdraw amount whose cashAmount (amount + round_half_up(0.5 %)) is exactly `cashAmount`. */
function withdrawAmountFor(cashAmount: number): number {
  for (let amount = Math.floor(cashAmount / 1.005) - 5; amount <= cashAmount; amount += 1) {
    if (amount + Math.floor((amount * 5 + 500) / 1000) === cashAmount) return amount
  }
  throw new Error(`no withdraw amount costs exactly ${cashAmount}`)
}

/** CONTRACT.md, Balances and the ledger: every balance of the merchant adds up and stays in bounds. */
async function assertLedgerInvariants(app: TestApp, merchantId: string): Promise<void> {
  const balances = await readBalances(app, merchantId)
  const entries = await readLedgerEntries(app, merchantId)
  for (const balance of balances) {
    const key = accountOf(balance)
    assertBalanceMatchesEntries(
      balance,
      entries.filter((entry) => accountOf(entry) === key),
      key,
    )
    assert.ok(
      balance.posted_minor >= 0 && balance.held_minor >= 0 && balance.held_minor <= balance.posted_minor,
      key,
    )
  }
}

async function countOperations(app: TestApp, merchantId: string, kind: string, merchantReference?: string) {
  let query = app.db
    .selectFrom('operations')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('merchant_id', '=', merchantId)
    .where('kind', '=', kind)
  if (merchantReference !== undefined) query = query.where('merchant_reference', '=', merchantReference)
  return Number((await query.executeTakeFirstOrThrow()).count)
}

function disbursement(merchantReference: string, suffix: string) {
  return {
    amount: disbursementAmount,
    channel: 'orange-money',
    country: 'CI',
    customer: { phoneNumber: phone(suffix), fullName: 'Awa Kone' },
    merchantReference,
    callbackUrl,
  }
}

describeEachStore('concurrent initiations', (store) => {
  let app: TestApp
  before(async () => {
    app = await startApp(store(), { environment })
  })
  after(() => app.close())

  /** A merchant whose available XOF balance covers exactly ten disbursements of 10,000. */
  async function merchantCoveringTen(): Promise<IssuedMerchant> {
    const merchant = await app.createMerchant()
    const drain = withdrawAmountFor(openingBalance - 10 * disbursementCashAmount)
    const withdraw = await app.client(merchant.sandbox).post('/api/v1/withdraw', {
      amount: drain,
      channel: 'orange-money',
      country: 'CI',
      customer: { phoneNumber: phone('123') },
      merchantReference: 'drain',
      callbackUrl,
    })
    assert.equal(withdraw.status, 200, withdraw.text)
    assert.equal(withdraw.body.data.withdraw.status, 'succeeded')
    assert.equal(withdraw.body.data.withdraw.cashAmount, openingBalance - 10 * disbursementCashAmount)
    const balance = await xofBalance(app, merchant.id)
    assert.deepEqual(
      { ...balance, available: availableOf(balance) },
      { posted: 101_000, held: 0, available: 101_000 },
    )
    return merchant
  }

  const races = [
    {
      outcome: 'succeeded',
      suffix: '123',
      balance: { posted: 0, held: 0, available: 0 },
      entryStatus: 'succeeded',
    },
    {
      outcome: 'pending',
      suffix: '900',
      balance: { posted: 101_000, held: 101_000, available: 0 },
      entryStatus: 'pending',
    },
  ]
  for (const race of races) {
    test(`50 simultaneous ${race.outcome} disbursements on a balance covering 10: 10 pass, 40 are refused`, {
      timeout: 60_000,
    }, async () => {
      const merchant = await merchantCoveringTen()
      const client = app.client(merchant.sandbox)
      const responses = await Promise.all(
        Array.from({ length: 50 }, (_, index) =>
          client.post('/api/v1/disbursement', disbursement(`race-${race.outcome}-${index}`, race.suffix)),
        ),
      )
      const accepted = responses.filter((response) => response.status === 200)
      const refused = responses.filter((response) => response.status === 422)
      assert.equal(accepted.length, 10, responses.map((response) => response.status).join(','))
      assert.equal(refused.length, 40)
      for (const response of accepted) {
        assert.equal(response.body.data.disbursement.status, race.outcome)
        assert.equal(response.body.data.disbursement.cashAmount, disbursementCashAmount)
      }
      for (const response of refused) {
        assert.equal(response.body.success, false)
        assert.equal(response.body.code, 'insufficient_balance')
      }
      const balance = await xofBalance(app, merchant.id)
      assert.deepEqual({ ...balance, available: availableOf(balance) }, race.balance)
      assert.equal(
        await countOperations(app, merchant.id, 'disbursement'),
        10,
        'only the accepted ones exist',
      )
      const entries = await app.db
        .selectFrom('ledger_entries')
        .select(['type', 'status', 'amount_minor'])
        .where('merchant_id', '=', merchant.id)
        .where('operation_kind', '=', 'disbursement')
        .execute()
      assert.deepEqual(
        entries,
        Array.from({ length: 10 }, () => ({
          type: 'cash-out',
          status: race.entryStatus,
          amount_minor: disbursementCashAmount,
        })),
      )
      await assertLedgerInvariants(app, merchant.id)
    })
  }

  const twins = [
    {
      title: 'a disbursement that succeeds at once',
      kind: 'disbursement',
      body: disbursement('twin', '123'),
      finalStatus: 'succeeded',
      entries: [{ type: 'cash-out', status: 'succeeded', amount_minor: 10_100 }],
    },
    {
      title: 'a pending disbursement (its hold is placed once)',
      kind: 'disbursement',
      body: disbursement('twin', '900'),
      finalStatus: 'pending',
      entries: [{ type: 'cash-out', status: 'pending', amount_minor: 10_100 }],
    },
    {
      title: 'a collect (credited once)',
      kind: 'collect',
      body: { ...disbursement('twin', '123') },
      finalStatus: 'succeeded',
      entries: [{ type: 'cash-in', status: 'succeeded', amount_minor: 9_850 }],
    },
    {
      title: 'a transfer (one credit, one payout)',
      kind: 'transfer',
      body: {
        from: {
          amount: 10_000,
          channel: 'orange-money',
          country: 'CI',
          customer: { phoneNumber: phone('123') },
        },
        to: {
          amount: 5_000,
          channel: 'orange-money',
          country: 'CI',
          customer: { phoneNumber: phone('456') },
        },
        merchantReference: 'twin',
        callbackUrl,
      },
      finalStatus: 'succeeded',
      entries: [
        { type: 'cash-in', status: 'succeeded', amount_minor: 9_850 },
        { type: 'cash-out', status: 'succeeded', amount_minor: 5_050 },
        { type: 'reversal', status: 'canceled', amount_minor: 9_850 },
      ],
    },
  ]
  for (const twin of twins) {
    test(`20 simultaneous identical initiations of ${twin.title} create exactly one operation`, {
      timeout: 60_000,
    }, async () => {
      const merchant = await app.createMerchant()
      const client = app.client(merchant.sandbox)
      const before = await xofBalance(app, merchant.id)
      const responses = await Promise.all(
        Array.from({ length: 20 }, () => client.post(`/api/v1/${twin.kind}`, twin.body)),
      )
      assert.deepEqual(
        responses.map((response) => response.status),
        Array.from({ length: 20 }, () => 200),
        responses.find((response) => response.status !== 200)?.text,
      )
      const tokens = new Set(responses.map((response) => response.body.data[twin.kind].token))
      assert.equal(tokens.size, 1, 'every answer names the same operation')
      assert.equal(await countOperations(app, merchant.id, twin.kind, 'twin'), 1)

      const [token] = tokens
      const details = await client.get(`/api/v1/${twin.kind}/${token}`)
      assert.equal(details.body.data[twin.kind].status, twin.finalStatus)
      assert.deepEqual(await entriesOfOperation(app, token!), twin.entries, 'money moved once')

      const moved = { cashIn: 0, cashOut: 0 }
      for (const entry of twin.entries) {
        if (entry.type === 'cash-in') moved.cashIn += entry.amount_minor
        if (entry.type === 'cash-out' && entry.status === 'succeeded') moved.cashOut += entry.amount_minor
      }
      const after = await xofBalance(app, merchant.id)
      assert.equal(after.posted, before.posted + moved.cashIn - moved.cashOut)
      await assertLedgerInvariants(app, merchant.id)
    })
  }

  test('a burst of 60 mixed operations at once: every answer 200 or insufficient_balance, the ledger adds up', {
    timeout: 60_000,
  }, async () => {
    const merchant = await app.createMerchant()
    const client = app.client(merchant.sandbox)
    const opening = await xofBalance(app, merchant.id)
    const kinds = ['collect', 'disbursement', 'withdraw', 'transfer', 'recharge', 'disbursement'] as const
    const suffixes = ['123', '901', '904', '900', '456']
    const requests = Array.from({ length: 60 }, (_, index) => {
      const kind = kinds[index % kinds.length]!
      const suffix = suffixes[index % suffixes.length]!
      const amount = 50_000 + index * 1_000
      const side = (phoneSuffix: string) => ({
        amount,
        channel: 'orange-money',
        country: 'CI',
        customer: { phoneNumber: phone(phoneSuffix) },
      })
      const merchantReference = `burst-${index}`
      const body =
        kind === 'transfer'
          ? {
              from: side(suffixes[(index + 1) % suffixes.length]!),
              to: side(suffix),
              merchantReference,
              callbackUrl,
            }
          : { ...side(suffix), merchantReference, callbackUrl }
      return { kind, body }
    })
    const responses = await Promise.all(
      requests.map(({ kind, body }) => client.post(`/api/v1/${kind}`, body)),
    )

    // What the answered records say the balance must be (CONTRACT.md, Balances and the ledger).
    let posted = opening.posted
    let held = opening.held
    for (const [index, response] of responses.entries()) {
      const { kind } = requests[index]!
      if (response.status === 422) {
        assert.equal(response.body.code, 'insufficient_balance', response.text)
        assert.ok(
          kind === 'disbursement' || kind === 'withdraw' || kind === 'transfer',
          `${kind} never needs a balance`,
        )
        continue
      }
      assert.equal(response.status, 200, response.text)
      const record = response.body.data[kind]
      if (kind === 'collect' || kind === 'recharge') {
        if (record.status === 'succeeded') posted += record.cashAmount
      } else if (kind === 'disbursement' || kind === 'withdraw') {
        if (record.status === 'succeeded') posted -= record.cashAmount
        if (record.status === 'pending') held += record.cashAmount
      } else {
        const { from, to } = record
        if (from.status === 'succeeded') {
          posted += from.cashAmount
          if (to.status === 'succeeded') posted -= to.cashAmount
          else if (to.status === 'pending') held += to.cashAmount + from.cashAmount
          else posted -= from.cashAmount // refunded
        } else if (from.status === 'pending') {
          held += to.cashAmount
        }
      }
    }
    const refused = responses.filter((response) => response.status === 422).length
    assert.ok(refused > 0, 'the burst outruns the balance')
    const balance = await xofBalance(app, merchant.id)
    assert.deepEqual({ posted: balance.posted, held: balance.held }, { posted, held })
    const created = responses.length - refused
    const operations = Number(
      (
        await app.db
          .selectFrom('operations')
          .select((eb) => eb.fn.countAll<number | string>().as('count'))
          .where('merchant_id', '=', merchant.id)
          .where('merchant_reference', 'like', 'burst-%')
          .executeTakeFirstOrThrow()
      ).count,
    )
    assert.equal(operations, created, 'one operation per 200, none per refusal')
    await assertLedgerInvariants(app, merchant.id)
  })

  test('20 simultaneous initiations sharing a reference with different bodies: one wins, 19 are 409', {
    timeout: 60_000,
  }, async () => {
    const merchant = await app.createMerchant()
    const client = app.client(merchant.sandbox)
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        client.post('/api/v1/disbursement', { ...disbursement('contested', '900'), amount: 1_000 + index }),
      ),
    )
    const winners = responses.filter((response) => response.status === 200)
    const losers = responses.filter((response) => response.status === 409)
    assert.equal(winners.length, 1, responses.map((response) => response.status).join(','))
    assert.equal(losers.length, 19)
    for (const response of losers) assert.equal(response.body.code, 'duplicate_merchant_reference')
    assert.equal(await countOperations(app, merchant.id, 'disbursement', 'contested'), 1)
    const winner = winners[0]!.body.data.disbursement
    const balance = await xofBalance(app, merchant.id)
    assert.equal(balance.held, winner.cashAmount, 'only the winner holds money')
    await assertLedgerInvariants(app, merchant.id)
  })
})
