import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { verifyStore } from '../../src/app/verify-store.ts'
import { startMtnMomoSimulator } from '../../src/simulators/mtn-momo/mtn-momo-simulator.ts'
import { startPawapaySimulator } from '../../src/simulators/pawapay/pawapay-simulator.ts'
import type { RunningSimulator } from '../../src/simulators/simulator.ts'
import { startWaveSimulator } from '../../src/simulators/wave/wave-simulator.ts'
import type { ApiClient, TestApp } from '../support/app.ts'
import { entriesOfOperation } from '../support/ledger.ts'
import {
  controlSimulator,
  type LiveApp,
  operatorReferenceOf,
  settledRecord,
  startLiveApp,
} from '../support/live.ts'
import { describeEachStore } from '../support/stores.ts'
import { pollUntilDefined } from '../support/wait.ts'

/**
 * CONTRACT.md, Balances and the ledger, and Operators: a live transfer whose `to` side fails after
 * its `from` customer paid pays that customer back through their own operator, with a refund
 * operation of its own. Its reversal is posted when the operator has paid, not when it is decided;
 * until then the transfer says the refund is under way, and if the refund fails the transfer says
 * so and `sika verify` names the money owed. Against the simulators as real servers: pawaPay
 * (Moov Money Benin), MTN MoMo (Côte d'Ivoire) and Wave (Senegal).
 *
 * The `from` payer's number ends in 105 (the payment and its refund succeed without a callback,
 * so each waits for a poll and the state in between can be read) and the `to` side's in 104
 * (pending until the test makes its operator fail it).
 */

const webhookSecret = `wave_sn_WHS_${'r'.repeat(43)}`
let sequence = 0

type Operator = 'pawapay' | 'mtn' | 'wave'

/** Where each adapter's customers are, and how its simulator names the payments. */
const routes = {
  pawapay: { channel: 'moov-money', country: 'BJ', phone: (ending: string) => `+2290197000${ending}` },
  mtn: { channel: 'mtn-momo', country: 'CI', phone: (ending: string) => `+2250500000${ending}` },
  wave: { channel: 'wave', country: 'SN', phone: (ending: string) => `+221770000${ending}` },
} as const

function parsed(body: string): Record<string, any> | undefined {
  try {
    return JSON.parse(body)
  } catch {
    return undefined
  }
}

describeEachStore(
  'live mode: a failed transfer pays its from customer back through the operator',
  (store) => {
    const simulators = {} as Record<Operator, RunningSimulator>
    let running: LiveApp
    let app: TestApp
    let live: ApiClient

    before(async () => {
      running = await startLiveApp(store(), async (publicBaseUrl) => {
        const notifications = (name: string) => `${publicBaseUrl}/providers/${name}/notifications`
        simulators.pawapay = await startPawapaySimulator({
          settleDelayMs: 100,
          depositCallbackUrl: notifications('pawapay'),
          payoutCallbackUrl: notifications('pawapay'),
          refundCallbackUrl: notifications('pawapay'),
        })
        simulators.mtn = await startMtnMomoSimulator({ settleDelayMs: 100 })
        simulators.wave = await startWaveSimulator({
          settleDelayMs: 100,
          webhookUrl: notifications('wave'),
          webhookSecret,
        })
        return [
          { simulator: simulators.pawapay, channel: 'moov-money', countries: ['BJ'] },
          { simulator: simulators.mtn, channel: 'mtn-momo', countries: ['CI'] },
          { simulator: simulators.wave, channel: 'wave', countries: ['SN'] },
        ]
      })
      ;({ app, live } = running)
      // Live balances open at zero: a collect funds the payouts' holds.
      const funding = await live.post('/api/v1/collect', {
        amount: 100_000,
        ...side('mtn', '120'),
        merchantReference: 'funding',
        callbackUrl: 'https://merchant.example/callback',
      })
      assert.equal((await settled('collect', funding.body.data.collect.token)).status, 'succeeded')
    })
    after(() => running?.close())

    function side(operator: Operator, ending: string) {
      const { channel, country, phone } = routes[operator]
      return { channel, country, customer: { phoneNumber: phone(ending), fullName: 'Awa Diop' } }
    }

    const settled = (kind: string, token: string, withinMs = 10_000) =>
      settledRecord(running, kind, token, withinMs)

    const record = async (kind: string, token: string) =>
      (await live.get(`/api/v1/${kind}/${token}`)).body.data[kind]

    const xof = async () =>
      (await live.get('/api/v1/balance')).body.data.balances.find(
        (entry: { currency: string }) => entry.currency === 'XOF',
      )

    const control = (operator: Operator, path: string, body: unknown) =>
      controlSimulator(simulators[operator], path, body)

    /** The `to` side's operator declines its payout (the recipient has no wallet), and calls back. */
    async function failPayout(operator: Operator, reference: string) {
      if (operator === 'mtn')
        await control('mtn', `transactions/${reference}/status`, {
          status: 'FAILED',
          reason: 'PAYEE_NOT_FOUND',
          callback: true,
        })
      else
        await control('pawapay', `transactions/${reference}/status`, {
          status: 'FAILED',
          failureCode: 'RECIPIENT_NOT_FOUND',
          callback: true,
          operation: 'payout',
        })
    }

    /** The calls the `from` operator received that pay its customer back: refunds and payouts. */
    function paybacks(operator: Operator, refunded: { reference: string; sessionId?: string }) {
      return simulators[operator].requests.filter((request) => {
        if (request.method !== 'POST') return false
        const body = parsed(request.body)
        if (operator === 'pawapay')
          return request.url === '/v2/refunds'
            ? body?.depositId === refunded.reference
            : request.url === '/v2/payouts' && body?.recipient?.accountDetails?.phoneNumber?.endsWith('105')
        if (operator === 'mtn')
          return request.url.includes('/refund')
            ? body?.referenceIdToRefund === refunded.reference
            : request.url.includes('/transfer') && body?.payee?.partyId?.endsWith('105')
        return (
          request.url === `/v1/checkout/sessions/${refunded.sessionId}/refund` || request.url === '/v1/payout'
        )
      })
    }

    /** Opens the transfer, lets its `from` customer pay, then fails its `to` side: answers the transfer and its refund's token. */
    async function transferWhoseToSideFails(from: Operator, to: Operator, beforeFailing = async () => {}) {
      const opened = await live.post('/api/v1/transfer', {
        from: { amount: 3000, ...side(from, '105') },
        to: { amount: 2000, ...side(to, '104') },
        merchantReference: `transfer-${sequence++}`,
        callbackUrl: 'https://merchant.example/callback',
      })
      assert.equal(opened.status, 200, opened.text)
      const token = opened.body.data.transfer.token
      const fromReference = await operatorReferenceOf(app, token, 'from')
      let sessionId: string | undefined
      if (from === 'wave') {
        const sessions = (await (await fetch(`${simulators.wave.url}/_simulator/sessions`)).json()) as any[]
        sessionId = sessions.find((entry) => entry.view?.client_reference === `${token}.from`)?.id
        assert.ok(sessionId, 'Wave holds a checkout session for the from side')
        await control('wave', `sessions/${sessionId}/pay`, { mobile: routes.wave.phone('105') })
      }
      const toPending = await pollUntilDefined(
        async () => {
          await app.workers.runDue()
          const now = await record('transfer', token)
          return now.from.status === 'succeeded' && now.to.operatorReference ? now : undefined
        },
        'the from side to succeed and the to side to be submitted',
        10_000,
      )
      await beforeFailing()
      await failPayout(to, await operatorReferenceOf(app, token, 'to'))
      const failed = await pollUntilDefined(async () => {
        const now = await record('transfer', token)
        return now.status === 'failed' ? now : undefined
      }, 'the to side to fail')
      return { token, toPending, failed, refunded: { reference: fromReference, sessionId } }
    }

    /** The refund the transfer opened, as GET /api/v1/refund lists it under the transfer's token. */
    async function refundOf(transferToken: string) {
      const listed = await live.get('/api/v1/refund', { merchantReference: transferToken })
      assert.equal(listed.status, 200, listed.text)
      assert.equal(listed.body.data.refunds.length, 1, 'one refund, listed under the transfer token')
      return listed.body.data.refunds[0]
    }

    const cases: { from: Operator; to: Operator; api: string }[] = [
      { from: 'pawapay', to: 'mtn', api: 'pawaPay POST /v2/refunds against the depositId' },
      { from: 'mtn', to: 'pawapay', api: 'MTN MoMo disbursement refund (referenceIdToRefund)' },
      { from: 'wave', to: 'mtn', api: 'Wave refund of the checkout session' },
    ]

    for (const { from, to, api } of cases) {
      test(`from ${from}: the customer is paid back by ${api}, the reversal posted only then`, async () => {
        const before = await xof()
        const { token, failed, refunded } = await transferWhoseToSideFails(from, to)
        const refund = await refundOf(token)
        assert.equal(refund.transfer, token)
        assert.equal(refund.amount, 3000, 'all the customer paid')
        assert.equal(refund.customer.phoneNumber, routes[from].phone('105'))
        assert.equal(
          failed.failureReason.code.endsWith('not_found'),
          true,
          JSON.stringify(failed.failureReason),
        )
        if (from !== 'wave') {
          // Until the operator has paid, the transfer says the refund is under way and the money stays held.
          assert.equal(refund.status, 'pending')
          assert.match(failed.failureReason.message, /refund is under way \(refund [a-z0-9-]+\)\.$/)
          assert.deepEqual(
            (await entriesOfOperation(app, refund.token)).map((entry) => [entry.type, entry.status]),
            [['reversal', 'pending']],
          )
          assert.equal(
            (await xof()).held,
            failed.from.cashAmount,
            'the refund holds what the from side was credited',
          )
        }
        const done = await settled('refund', refund.token)
        assert.equal(done.status, 'succeeded', JSON.stringify(done))
        const after = await record('transfer', token)
        assert.equal(after.status, 'failed')
        assert.match(after.failureReason.message, /The from customer was refunded \(refund [a-z0-9-]+\)\.$/)
        assert.deepEqual(
          (await entriesOfOperation(app, refund.token)).map((entry) => [
            entry.type,
            entry.status,
            entry.amount_minor,
          ]),
          [['reversal', 'succeeded', failed.from.cashAmount]],
        )
        assert.deepEqual(
          (await entriesOfOperation(app, token)).map((entry) => [entry.type, entry.status]),
          [
            ['cash-in', 'succeeded'],
            ['cash-out', 'canceled'],
            ['reversal', 'canceled'],
          ],
          'the transfer credited the from side, released its payout hold, and handed its reserve to the refund',
        )
        const balance = await xof()
        assert.equal(balance.balance, before.balance, 'what the from side brought in went back out')
        assert.equal(balance.held, 0)
        assert.equal(paybacks(from, refunded).length, 1, 'one call to the operator pays the customer back')
        const report = await verifyStore(app.context)
        assert.deepEqual(report.inconsistencies, [])
        assert.equal(
          report.owedToCustomers.some((debt) => debt.subject === `transfer ${token}`),
          false,
          'nothing is owed for this transfer',
        )
      })

      test(`from ${from}: a refund the operator fails leaves the transfer saying so and verify naming the debt`, async () => {
        // Wave refunds at once: it refuses this one because the merchant's API key is revoked meanwhile.
        const revokeWaveKey = async () => {
          if (from === 'wave') await control('wave', 'revoke-api-key', {})
        }
        let opened: Awaited<ReturnType<typeof transferWhoseToSideFails>>
        let refund: Record<string, any>
        try {
          opened = await transferWhoseToSideFails(from, to, revokeWaveKey)
          // The refund goes to Wave once the transfer's failure is written: wait for Wave's answer.
          refund = await pollUntilDefined(async () => {
            const now = await refundOf(opened.token)
            return from !== 'wave' || now.status !== 'pending' ? now : undefined
          }, 'the refund to be answered')
        } finally {
          if (from === 'wave') await control('wave', 'restore-api-key', {})
        }
        const { token, refunded } = opened
        if (from !== 'wave') {
          const reference = await operatorReferenceOf(app, refund.token, 'main')
          if (from === 'pawapay')
            await control('pawapay', `transactions/${reference}/status`, {
              status: 'FAILED',
              failureCode: 'RECIPIENT_NOT_FOUND',
              callback: true,
              operation: 'refund',
            })
          else
            await control('mtn', `transactions/${reference}/status`, {
              status: 'FAILED',
              reason: 'PAYEE_NOT_FOUND',
              callback: true,
              resource: 'refund',
            })
          refund = await settled('refund', refund.token)
        }
        assert.notEqual(refund.status, 'succeeded', JSON.stringify(refund))
        assert.notEqual(refund.status, 'pending', JSON.stringify(refund))
        const transfer = await record('transfer', token)
        assert.match(
          transfer.failureReason.message,
          /The refund to the from customer (failed|could not be made) \(refund [a-z0-9-]+, [a-z]+\): [0-9]+ XOF is owed to them\.$/,
        )
        assert.deepEqual(
          (await entriesOfOperation(app, refund.token)).map((entry) => [entry.type, entry.status]),
          [['reversal', 'canceled']],
          'nothing was paid back, so nothing is posted',
        )
        const report = await verifyStore(app.context)
        assert.deepEqual(report.inconsistencies, [], 'the ledger adds up')
        const debt = report.owedToCustomers.find((entry) => entry.subject === `transfer ${token}`)
        assert.ok(debt, 'verify names the money owed')
        assert.match(debt.owed, new RegExp(`^${transfer.from.cashAmount} XOF to its from customer`))
        assert.equal(paybacks(from, refunded).length, 1, 'the operator was asked once')
      })
    }
  },
)
