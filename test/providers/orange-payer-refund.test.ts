import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { verifyStore } from '../../src/app/verify-store.ts'
import { startMtnMomoSimulator } from '../../src/simulators/mtn-momo/mtn-momo-simulator.ts'
import { startOrangeMoneySimulator } from '../../src/simulators/orange-money/orange-money-simulator.ts'
import type { RunningSimulator } from '../../src/simulators/simulator.ts'
import { entriesOfOperation } from '../support/ledger.ts'
import { controlSimulator, type LiveApp, settledRecord, startLiveApp } from '../support/live.ts'
import { describeEachStore } from '../support/stores.ts'
import { pollUntilDefined } from '../support/wait.ts'

/**
 * Orange Money Web Payment can neither refund nor pay out. A live transfer whose `from` customer
 * paid through Orange and whose `to` side then fails still opens the refund it owes that
 * customer; Orange cannot make it, so the refund ends `error` at once, Orange is asked nothing,
 * the transfer says the refund could not be made and what is owed, and `sika verify` names it.
 */

describeEachStore('live mode: a failed transfer whose payer paid through Orange Money', (store) => {
  let orange: RunningSimulator
  let mtn: RunningSimulator
  let running: LiveApp

  before(async () => {
    running = await startLiveApp(store(), async () => {
      orange = await startOrangeMoneySimulator({ settleDelayMs: 100 })
      mtn = await startMtnMomoSimulator({ settleDelayMs: 100 })
      return [
        { simulator: orange, channel: 'orange-money', countries: ['CI'] },
        { simulator: mtn, channel: 'mtn-momo', countries: ['CI'] },
      ]
    })
  })
  after(() => running?.close())

  before(async () => {
    // Live balances open at zero: a collect funds the payout's hold.
    const funding = await running.live.post('/api/v1/collect', {
      amount: 100_000,
      channel: 'mtn-momo',
      country: 'CI',
      customer: { phoneNumber: '+2250500000120' },
      merchantReference: 'funding',
      callbackUrl: 'https://merchant.example/callback',
    })
    assert.equal(funding.status, 200, funding.text)
    const collect = (await settledRecord(running, 'collect', funding.body.data.collect.token)) as {
      status: string
    }
    assert.equal(collect.status, 'succeeded')
  })

  test('its refund ends error without a call to Orange; the transfer says what is owed and verify names it', async () => {
    const { live, app } = running
    const opened = await live.post('/api/v1/transfer', {
      from: { amount: 3000, channel: 'orange-money', country: 'CI', customer: { phoneNumber: '0700000123' } },
      to: { amount: 2000, channel: 'mtn-momo', country: 'CI', customer: { phoneNumber: '+2250500000104' } },
      merchantReference: 'orange-payer-1',
      callbackUrl: 'https://merchant.example/callback',
    })
    assert.equal(opened.status, 200, opened.text)
    const { token } = opened.body.data.transfer
    await controlSimulator(orange, `payments/${token}/pay`, { msisdn: '0700000123' })
    const toReference = await pollUntilDefined(async () => {
      await app.workers.runDue()
      const now = (await live.get(`/api/v1/transfer/${token}`)).body.data.transfer
      return now.from.status === 'succeeded' && now.to.operatorReference
        ? now.to.operatorReference
        : undefined
    }, 'the from side to succeed and the to side to be submitted')
    const orangeCallsBefore = orange.requests.length
    await controlSimulator(mtn, `transactions/${toReference}/status`, {
      status: 'FAILED',
      reason: 'PAYEE_NOT_FOUND',
      callback: true,
    })

    const refund = await pollUntilDefined(async () => {
      const listed = (await live.get('/api/v1/refund', { merchantReference: token })).body.data.refunds
      return listed.length === 1 && listed[0].status !== 'pending' ? listed[0] : undefined
    }, 'the transfer to open its refund, and the refund to end')
    assert.equal(refund.status, 'error', JSON.stringify(refund))
    assert.equal(refund.failureReason.code, 'operator_cannot_refund')
    assert.equal(refund.transfer, token)
    const transfer = (await settledRecord(running, 'transfer', token)) as Record<string, any>
    assert.equal(transfer.status, 'failed')
    assert.match(
      transfer.failureReason.message,
      /The refund to the from customer could not be made \(refund [a-z0-9-]+, error\): [0-9]+ XOF is owed to them\.$/,
    )
    assert.deepEqual(
      (await entriesOfOperation(app, refund.token)).map((entry) => [entry.type, entry.status]),
      [['reversal', 'canceled']],
      'nothing was paid back, so nothing is posted',
    )
    const asked = orange.requests.slice(orangeCallsBefore).filter((request) => request.method === 'POST')
    assert.deepEqual(
      asked.filter((request) => !request.url.includes('transactionstatus')),
      [],
      'Orange is asked for no payment back',
    )
    const report = await verifyStore(app.context)
    assert.deepEqual(report.inconsistencies, [])
    const debt = report.owedToCustomers.find((entry) => entry.subject === `transfer ${token}`)
    assert.ok(debt, 'verify names the money owed')
    assert.match(debt.owed, new RegExp(`^${transfer.from.cashAmount} XOF to its from customer`))
  })
})
