import assert from 'node:assert/strict'
import { test } from 'node:test'
import { type Currency, currencies } from '../../src/domain/money.ts'
import { exceedsReviewAmount, reviewAmountIn } from '../../src/domain/review-amount.ts'

/**
 * CONTRACT.md, Reconciliation: a break of more than 100,000 XOF "or the same value in another
 * currency" needs a second finance member. The review amount is in XOF; XAF is at par; the
 * floating currencies are valued at the fixed rates the guide lists.
 */

test('XOF and XAF: more than the review amount, not as much', () => {
  for (const currency of ['XOF', 'XAF'] as const) {
    assert.equal(exceedsReviewAmount(100_000, currency, 100_000), false)
    assert.equal(exceedsReviewAmount(100_001, currency, 100_000), true)
  }
})

test('another currency is valued in XOF at its fixed rate: 60 XOF a cedi, 5 a Kenyan shilling, 1 for 5 Ugandan shillings', () => {
  // 1,666.66 GHS is 99,999.60 XOF; 1,666.67 GHS is 100,000.20 XOF.
  assert.equal(exceedsReviewAmount(166_666, 'GHS', 100_000), false)
  assert.equal(exceedsReviewAmount(166_667, 'GHS', 100_000), true)
  assert.equal(exceedsReviewAmount(2_000_000, 'KES', 100_000), false)
  assert.equal(exceedsReviewAmount(2_000_001, 'KES', 100_000), true)
  assert.equal(exceedsReviewAmount(500_000, 'UGX', 100_000), false)
  assert.equal(exceedsReviewAmount(500_001, 'UGX', 100_000), true)
  // 100,000 of a currency's major units is no longer 100,000 XOF.
  assert.equal(exceedsReviewAmount(100_000 * 100, 'GHS', 100_000), true)
})

test('the review amount shown in each currency is the largest amount that does not need a second member', () => {
  assert.deepEqual(
    Object.fromEntries(
      Object.keys(currencies).map((currency) => [currency, reviewAmountIn(currency as Currency, 100_000)]),
    ),
    { XOF: 100_000, XAF: 100_000, GHS: 166_666, KES: 2_000_000, UGX: 500_000 },
  )
  for (const currency of Object.keys(currencies) as Currency[]) {
    const shown = reviewAmountIn(currency, 250_000)
    assert.equal(exceedsReviewAmount(shown, currency, 250_000), false, currency)
    assert.equal(exceedsReviewAmount(shown + 1, currency, 250_000), true, currency)
  }
})

test('amounts as large as any accepted are compared exactly', () => {
  assert.equal(exceedsReviewAmount(1_000_000_000_000 * 100, 'GHS', 1_000_000_000_000), true)
  assert.equal(exceedsReviewAmount(0, 'UGX', 0), false)
})
