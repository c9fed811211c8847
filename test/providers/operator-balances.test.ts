import assert from 'node:assert/strict'
import { test } from 'node:test'
import { startMtnMomoSimulator } from '../../src/simulators/mtn-momo/mtn-momo-simulator.ts'
import { startOrangeMoneySimulator } from '../../src/simulators/orange-money/orange-money-simulator.ts'
import { connectionsOf, sideRequest } from '../support/operator-connections.ts'
import { waitFor } from '../support/wait.ts'

/**
 * CONTRACT.md, Platform console (operator accounts): each connection's balance as the operator's
 * balance API gives it, read through its adapter against the operator's simulator (a real server
 * on 127.0.0.1). Orange Money Web Payment publishes none, and its adapter offers none.
 */

test('MTN MoMo: the account balance of each product, moved by what succeeds through the adapter', async () => {
  const simulator = await startMtnMomoSimulator({
    settleDelayMs: 20,
    currencies: ['XOF'],
    availableBalance: '500000',
  })
  try {
    const [connection] = connectionsOf([simulator.connection('mtn-momo', ['CI'])])
    const adapter = connection!.adapter
    assert.equal(connection!.id, 'mtn-momo-ci')
    assert.equal(adapter.statement, undefined, 'MTN publishes no statement API')
    const opened = await adapter.balance!()
    assert.ok(opened.ok, !opened.ok ? opened.reason : '')
    assert.deepEqual(
      opened.value.map(({ account, currency, balanceMinor }) => ({ account, currency, balanceMinor })),
      [
        { account: 'collection', currency: 'XOF', balanceMinor: 500_000 },
        { account: 'disbursement', currency: 'XOF', balanceMinor: 500_000 },
      ],
    )
    assert.deepEqual(opened.value[0]!.raw, { availableBalance: '500000', currency: 'XOF' })

    const nowUs = Date.now() * 1000
    const collect = sideRequest({
      direction: 'cash-in',
      channel: 'mtn-momo',
      country: 'CI',
      amountMinor: 7000,
      phoneNumber: '2250700000000',
    })
    const payout = sideRequest({
      direction: 'cash-out',
      channel: 'mtn-momo',
      country: 'CI',
      amountMinor: 2500,
      phoneNumber: '2250700000000',
    })
    await adapter.initiate(collect, nowUs)
    await adapter.initiate(payout, nowUs)
    await waitFor('both payments settled at MTN', () =>
      simulator.transactions().every((entry) => entry.status === 'SUCCESSFUL'),
    )
    const moved = await adapter.balance!()
    assert.ok(moved.ok)
    assert.deepEqual(
      moved.value.map((balance) => balance.balanceMinor),
      [507_000, 497_500],
    )
  } finally {
    await simulator.close()
  }
})

test('MTN MoMo: a balance that cannot be read is a reason naming the call, never a credential', async () => {
  const simulator = await startMtnMomoSimulator({ currencies: ['XOF'] })
  const entry = simulator.connection('mtn-momo', ['CI'])
  const [connection] = connectionsOf([entry])
  await simulator.close()
  const read = await connection!.adapter.balance!()
  const reason = read.ok ? '' : read.reason
  assert.match(reason, /^MTN MoMo gave no answer to GET \/(collection|disbursement)\/v1_0\/account\/balance/)
  const secrets = ['collection', 'disbursement'].flatMap((product) =>
    Object.values(entry[product] as Record<string, string>),
  )
  for (const secret of secrets) assert.ok(!reason.includes(secret), 'no credential in the reason')

  const euro = await startMtnMomoSimulator()
  try {
    const [inEuro] = connectionsOf([euro.connection('mtn-momo', ['CI'])])
    const read = await inEuro!.adapter.balance!()
    assert.deepEqual(read, {
      ok: false,
      reason: "MTN MoMo's collection balance is in a currency Sika does not hold.",
    })
  } finally {
    await euro.close()
  }
})

test('Orange Money Web Payment publishes no balance and no statement: its adapter offers neither', async () => {
  const simulator = await startOrangeMoneySimulator()
  try {
    const [connection] = connectionsOf([simulator.connection('orange-money', ['CI'])])
    assert.equal(connection!.adapter.balance, undefined)
    assert.equal(connection!.adapter.statement, undefined)
  } finally {
    await simulator.close()
  }
})
