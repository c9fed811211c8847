import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { readOperatorAccounts } from '../../src/app/console/operator-accounts.ts'
import { startMtnMomoSimulator } from '../../src/simulators/mtn-momo/mtn-momo-simulator.ts'
import { startOrangeMoneySimulator } from '../../src/simulators/orange-money/orange-money-simulator.ts'
import {
  type RunningPawapaySimulator,
  startPawapaySimulator,
} from '../../src/simulators/pawapay/pawapay-simulator.ts'
import type { RunningSimulator } from '../../src/simulators/simulator.ts'
import { startWaveSimulator } from '../../src/simulators/wave/wave-simulator.ts'
import { startApp } from '../support/app.ts'
import { type LiveApp, startLiveApp } from '../support/live.ts'
import { describeEachStore } from '../support/stores.ts'
import { waitFor } from '../support/wait.ts'

/**
 * CONTRACT.md, Platform console (operator accounts): each live connection of OPERATORS_FILE with
 * its balance as the operator's balance API gives it (the simulators as real servers), read at
 * most once a minute; "not offered" for Orange Money; an operator that does not answer shown
 * unavailable; the payouts waiting for it, pending and queued in a batch; and the low-balance
 * alert on the connection and in /metrics.
 */

const callbackUrl = 'https://merchant.example/callback'
const customer = { phoneNumber: '+22901970001' }
let sequence = 0

const balanceCalls = (simulator: RunningSimulator, path: RegExp) =>
  simulator.requests.filter((request) => request.method === 'GET' && path.test(request.url)).length

describeEachStore('console: operator accounts', (store) => {
  let running: LiveApp
  let mtn: RunningSimulator
  let wave: RunningSimulator
  let pawapay: RunningPawapaySimulator
  let silentWave: RunningSimulator
  before(async () => {
    running = await startLiveApp(store(), async (publicBaseUrl) => {
      const notifications = `${publicBaseUrl}/providers/pawapay/notifications`
      mtn = await startMtnMomoSimulator({ currencies: ['XOF'], availableBalance: '500000' })
      wave = await startWaveSimulator({ openingBalance: '200000' })
      silentWave = await startWaveSimulator({ countryCode: 'ci' })
      pawapay = await startPawapaySimulator({
        settleDelayMs: 50,
        depositCallbackUrl: notifications,
        payoutCallbackUrl: notifications,
      })
      const orange = await startOrangeMoneySimulator({
        webhookUrl: `${publicBaseUrl}/providers/orange-money/notifications`,
      })
      return [
        { simulator: mtn, channel: 'mtn-momo', countries: ['CI'], fields: { lowBalanceAlert: 600_000 } },
        { simulator: wave, channel: 'wave', countries: ['SN'], fields: { lowBalanceAlert: 100_000 } },
        { simulator: silentWave, channel: 'wave', countries: ['CI'] },
        { simulator: pawapay, channel: 'moov-money', countries: ['BJ'] },
        { simulator: orange, channel: 'orange-money', countries: ['CI'] },
      ]
    })
    await silentWave.close()
  })
  after(() => running.close())

  async function settle(path: string, key: string) {
    await waitFor(`${path} to settle`, async () => {
      await running.app.workers.runDue()
      return (await running.live.get(path)).body.data[key].status !== 'pending'
    })
  }

  test('each connection shows its operator’s balance, or why it has none, and the alert below its threshold', async () => {
    const accounts = await readOperatorAccounts(running.app.context)
    const byId = new Map(accounts.connections.map((connection) => [connection.id, connection]))
    assert.deepEqual(
      accounts.connections.map((connection) => connection.id),
      ['mtn-momo-ci', 'wave-sn', 'wave-ci', 'moov-money-bj', 'orange-money-ci'],
    )
    const figures = (id: string) => {
      const balance = byId.get(id)!.balance
      assert.equal(balance.state, 'read', JSON.stringify(balance))
      return balance.state === 'read'
        ? balance.accounts.map(({ account, currency, balanceMinor, low }) => ({
            account,
            currency,
            balanceMinor,
            low,
          }))
        : []
    }
    assert.deepEqual(figures('mtn-momo-ci'), [
      { account: 'collection', currency: 'XOF', balanceMinor: 500_000, low: true },
      { account: 'disbursement', currency: 'XOF', balanceMinor: 500_000, low: true },
    ])
    assert.equal(byId.get('mtn-momo-ci')!.lowBalance, true)
    assert.deepEqual(figures('wave-sn'), [
      { account: 'wallet', currency: 'XOF', balanceMinor: 200_000, low: false },
    ])
    assert.equal(byId.get('wave-sn')!.lowBalance, false)
    assert.deepEqual(
      figures('moov-money-bj').filter((figure) => figure.currency === 'XOF'),
      [{ account: 'BEN/XOF', currency: 'XOF', balanceMinor: 1_000_000, low: false }],
    )
    assert.deepEqual(byId.get('orange-money-ci')!.balance, { state: 'not-offered' })
    const silent = byId.get('wave-ci')!.balance
    assert.equal(silent.state, 'unavailable')
    assert.match(silent.state === 'unavailable' ? silent.reason : '', /Wave/)
    assert.equal(byId.get('wave-ci')!.lowBalance, false)

    const metrics = await (await fetch(running.app.metricsUrl)).text()
    assert.match(metrics, /sika_operator_balance_low\{connection="mtn-momo-ci",currency="XOF"\} 1/)
    assert.match(metrics, /sika_operator_balance_low\{connection="wave-sn",currency="XOF"\} 0/)
    assert.match(
      metrics,
      /sika_operator_balance\{connection="wave-sn",account="wallet",currency="XOF"\} 200000/,
    )
  })

  test('a balance is asked of its operator at most once a minute, however often it is shown', async () => {
    const mtnBefore = balanceCalls(mtn, /account\/balance/)
    const waveBefore = balanceCalls(wave, /^\/v1\/balance/)
    await Promise.all([readOperatorAccounts(running.app.context), readOperatorAccounts(running.app.context)])
    await readOperatorAccounts(running.app.context)
    assert.equal(balanceCalls(mtn, /account\/balance/), mtnBefore)
    assert.equal(balanceCalls(wave, /^\/v1\/balance/), waveBefore)
  })

  test('the payouts waiting for an account: pending at the operator, and queued in a batch', async () => {
    const { live } = running
    const collected = await live.post('/api/v1/collect', {
      amount: 50_000,
      channel: 'moov-money',
      country: 'BJ',
      customer,
      merchantReference: `fund-${sequence++}`,
      callbackUrl,
    })
    assert.equal(collected.status, 200, collected.text)
    await settle(`/api/v1/collect/${collected.body.data.collect.token}`, 'collect')
    pawapay.holdPayouts(true)
    for (const amount of [1000, 2500]) {
      const paid = await live.post('/api/v1/disbursement', {
        amount,
        channel: 'moov-money',
        country: 'BJ',
        customer,
        merchantReference: `payout-${sequence++}`,
        callbackUrl,
      })
      assert.equal(paid.status, 200, paid.text)
    }
    const batch = await live.post('/api/v1/payout-batch', {
      merchantReference: `batch-${sequence++}`,
      callbackUrl,
      items: [700, 300, 500].map((amount) => ({
        amount,
        channel: 'moov-money',
        country: 'BJ',
        customer,
        merchantReference: `item-${sequence++}`,
      })),
    })
    assert.equal(batch.status, 200, batch.text)

    const accounts = await readOperatorAccounts(running.app.context)
    const pawapayAccount = accounts.connections.find((connection) => connection.id === 'moov-money-bj')!
    assert.deepEqual(pawapayAccount.waiting, [
      { currency: 'XOF', pendingCount: 2, pendingMinor: 3500, queuedCount: 3, queuedMinor: 1500 },
    ])
    assert.equal(accounts.waitingComplete, true)
    for (const other of accounts.connections.filter((connection) => connection.id !== 'moov-money-bj'))
      assert.deepEqual(other.waiting, [], other.id)
    pawapay.holdPayouts(false)
  })
})

describeEachStore('console: operator balances watched by the workers', (store) => {
  test('the low-balance gauge is raised without anyone opening the console', async () => {
    const mtn = await startMtnMomoSimulator({ currencies: ['XOF'], availableBalance: '500000' })
    const directory = mkdtempSync(join(tmpdir(), 'sika-operators-'))
    const file = join(directory, 'operators.json')
    writeFileSync(
      file,
      JSON.stringify({ connections: [{ ...mtn.connection('mtn-momo', ['CI']), lowBalanceAlert: 600_000 }] }),
    )
    const app = await startApp(store(), { workers: 'background', environment: { OPERATORS_FILE: file } })
    try {
      await waitFor('the gauge raised by the workers’ reading', async () =>
        /sika_operator_balance_low\{connection="mtn-momo-ci",currency="XOF"\} 1/.test(
          await (await fetch(app.metricsUrl)).text(),
        ),
      )
    } finally {
      await app.close()
      await mtn.close()
      rmSync(directory, { recursive: true, force: true })
    }
  })
})
