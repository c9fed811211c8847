import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { Operation, Side } from '../../src/domain/operation.ts'
import { leadingPricingRefusal, type PricingRefusal } from '../../src/domain/pricing.ts'
import { customerRefundSide, leftToRefundMinor, refundSide } from '../../src/domain/refunds.ts'

/** The refund and pricing-precedence rules of CONTRACT.md (Refunds, Errors), as tables. */

const paid: Side = {
  role: 'from',
  kind: 'collect',
  channel: 'moov-money',
  country: 'BJ',
  currency: 'XOF',
  amountMinor: 3000,
  feesMinor: 45,
  transactionAmountMinor: 3000,
  cashAmountMinor: 2955,
  percentageMilli: 1500,
  additionalFeeMinor: 0,
  supportedByAccount: true,
  customer: { fullName: 'Awa Diop', phoneNumber: '+2290197000123', email: '' },
  status: 'succeeded',
  operatorReference: 'f02b543c-541c-4f21-bbea-20d2d56063d6',
  providerReference: 'MOOV-1',
}

const collect = (refundableMinor: number, refundedMinor: number) =>
  ({
    kind: 'collect',
    sides: [{ ...paid, role: 'main' }],
    refunds: { refundableMinor, refundedMinor },
  }) as Operation

describe('what is left to refund', () => {
  for (const [refundable, refunded, left] of [
    [5000, 0, 5000],
    [5000, 2000, 3000],
    [5000, 5000, 0],
  ] as const)
    test(`${refundable} collected, ${refunded} refunded or being refunded: ${left} left`, () => {
      assert.equal(leftToRefundMinor(collect(refundable, refunded)), left)
    })
  test('an operation that cannot be refunded has nothing left', () => {
    assert.equal(leftToRefundMinor({ kind: 'disbursement' } as Operation), 0)
  })
})

describe('the side a refund pays back', () => {
  test('a merchant’s refund: the amount asked, no fee, to the collect’s customer against its payment', () => {
    const side = refundSide(collect(3000, 0), 1200)
    assert.deepEqual(
      [side.kind, side.amountMinor, side.feesMinor, side.transactionAmountMinor, side.cashAmountMinor],
      ['refund', 1200, 0, 1200, 1200],
    )
    assert.deepEqual(side.refundedPayment, {
      kind: 'collect',
      role: 'main',
      operatorReference: paid.operatorReference,
      providerReference: paid.providerReference,
      transactionAmountMinor: 3000,
    })
  })
  for (const [supportedByAccount, transactionAmount, cashAmount] of [
    [true, 3000, 2955],
    [false, 3045, 3000],
  ] as const)
    test(`a transfer's customer refund (fees borne by ${supportedByAccount ? 'the merchant' : 'the customer'}): the customer gets ${transactionAmount}, the balance gives back ${cashAmount}`, () => {
      const side = customerRefundSide(
        {
          ...paid,
          supportedByAccount,
          transactionAmountMinor: transactionAmount,
          cashAmountMinor: cashAmount,
        },
        'transfer',
      )
      assert.equal(side.amountMinor, transactionAmount)
      assert.equal(side.transactionAmountMinor, transactionAmount)
      assert.equal(side.cashAmountMinor, cashAmount)
      assert.equal(side.feesMinor, 0, 'the fee is waived, none is charged')
      assert.equal(side.refundedPayment?.kind, 'transfer')
      assert.equal(side.refundedPayment?.role, 'from')
    })
})

describe('which pricing refusal names the answer', () => {
  const cases: [PricingRefusal[], PricingRefusal | undefined][] = [
    [[], undefined],
    [['amount_out_of_range'], 'amount_out_of_range'],
    [['amount_out_of_range', 'channel_unavailable'], 'channel_unavailable'],
    [['channel_unavailable', 'invalid_input'], 'invalid_input'],
    [['amount_out_of_range', 'invalid_input', 'channel_unavailable'], 'invalid_input'],
  ]
  for (const [found, leading] of cases)
    test(`[${found.join(', ')}] is answered ${leading ?? 'by no refusal'}`, () => {
      assert.equal(leadingPricingRefusal(found), leading)
    })
})
