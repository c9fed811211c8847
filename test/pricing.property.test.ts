import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import fc from 'fast-check'
import type { Direction } from '../src/domain/kinds.ts'
import {
  type Currency,
  currencies,
  maximumMinorUnits,
  toMajorUnits,
  toMinorUnits,
} from '../src/domain/money.ts'
import {
  type FeeRule,
  feesFor,
  milliToPercentage,
  percentageScale,
  percentageToMilli,
  price,
} from '../src/domain/pricing.ts'

// CONTRACT.md, Pricing and Money, checked against an independent exact computation.

/** round_half_up(amount * percentage / 100 + additionalFee) as an exact fraction: quotient, then the remainder decides. */
function expectedFees(amountMinor: number, rule: FeeRule): number {
  const denominator = 100n * BigInt(percentageScale)
  const numerator =
    BigInt(amountMinor) * BigInt(rule.percentageMilli) + BigInt(rule.additionalFeeMinor) * denominator
  const quotient = numerator / denominator
  const remainder = numerator % denominator
  return Number(remainder * 2n >= denominator ? quotient + 1n : quotient)
}

/** The contract's table of what moves where, by direction and by who bears the fee. */
function expectedAmounts(
  amountMinor: number,
  feesMinor: number,
  direction: Direction,
  merchantBears: boolean,
) {
  if (direction === 'cash-in') {
    return merchantBears
      ? { transactionAmountMinor: amountMinor, cashAmountMinor: amountMinor - feesMinor }
      : { transactionAmountMinor: amountMinor + feesMinor, cashAmountMinor: amountMinor }
  }
  return merchantBears
    ? { transactionAmountMinor: amountMinor, cashAmountMinor: amountMinor + feesMinor }
    : { transactionAmountMinor: amountMinor - feesMinor, cashAmountMinor: amountMinor }
}

// Small values find the edges (fees eating the whole amount); large ones find overflow.
const amountMinor = fc.oneof(
  fc.integer({ min: 1, max: 1_000 }),
  fc.integer({ min: 1, max: maximumMinorUnits }),
)
const percentageMilli = fc.oneof(
  fc.constantFrom(0, 500, 1_000, 1_500, 50_000, 100_000),
  fc.integer({ min: 0, max: 100 * percentageScale }),
)
const additionalFeeMinor = fc.oneof(
  fc.constant(0),
  fc.integer({ min: 0, max: 1_000 }),
  fc.integer({ min: 0, max: 1_000_000_000 }),
)
const feeRule: fc.Arbitrary<FeeRule> = fc.record({
  percentageMilli,
  additionalFeeMinor,
  supportedByAccount: fc.boolean(),
})
const direction = fc.constantFrom<Direction>('cash-in', 'cash-out')

describe('pricing: feesAmount = round_half_up(amount * percentageFee / 100 + additionalFee)', () => {
  const examples: { amount: number; percentageMilli: number; additionalFeeMinor: number; fees: number }[] = [
    { amount: 10_000, percentageMilli: 1_500, additionalFeeMinor: 0, fees: 150 },
    { amount: 10_000, percentageMilli: 1_000, additionalFeeMinor: 0, fees: 100 },
    { amount: 10_000, percentageMilli: 500, additionalFeeMinor: 0, fees: 50 },
    { amount: 100, percentageMilli: 1_500, additionalFeeMinor: 0, fees: 2 }, // 1.5 rounds up
    { amount: 100, percentageMilli: 500, additionalFeeMinor: 0, fees: 1 }, // 0.5 rounds up
    { amount: 1, percentageMilli: 49_999, additionalFeeMinor: 0, fees: 0 }, // 0.49999 rounds down
    { amount: 3, percentageMilli: 500, additionalFeeMinor: 0, fees: 0 },
    { amount: 894_527, percentageMilli: 500, additionalFeeMinor: 0, fees: 4_473 }, // 4472.635
    { amount: 1_000, percentageMilli: 1_250, additionalFeeMinor: 25, fees: 38 }, // 12.5 + 25
    { amount: maximumMinorUnits, percentageMilli: 100_000, additionalFeeMinor: 0, fees: maximumMinorUnits },
  ]
  for (const example of examples) {
    test(`${example.amount} at ${example.percentageMilli / percentageScale} % + ${example.additionalFeeMinor} is ${example.fees}`, () => {
      assert.equal(feesFor(example.amount, { ...example, supportedByAccount: true }), example.fees)
    })
  }

  test('feesFor equals the exact rational computation for any amount, rate and additional fee', () => {
    fc.assert(
      fc.property(amountMinor, feeRule, (amount, rule) => {
        assert.equal(feesFor(amount, rule), expectedFees(amount, rule))
      }),
      { numRuns: 2_000 },
    )
  })
})

describe('pricing: transactionAmount and cashAmount by direction and bearer', () => {
  const table: {
    direction: Direction
    merchantBears: boolean
    transactionAmount: number
    cashAmount: number
  }[] = [
    { direction: 'cash-in', merchantBears: true, transactionAmount: 10_000, cashAmount: 9_850 },
    { direction: 'cash-in', merchantBears: false, transactionAmount: 10_150, cashAmount: 10_000 },
    { direction: 'cash-out', merchantBears: true, transactionAmount: 10_000, cashAmount: 10_150 },
    { direction: 'cash-out', merchantBears: false, transactionAmount: 9_850, cashAmount: 10_000 },
  ]
  for (const row of table) {
    test(`${row.direction}, ${row.merchantBears ? 'merchant' : 'customer'} bears 1.5 % of 10,000`, () => {
      const rule = { percentageMilli: 1_500, additionalFeeMinor: 0, supportedByAccount: row.merchantBears }
      assert.deepEqual(price(10_000, row.direction, rule), {
        amountMinor: 10_000,
        feesMinor: 150,
        transactionAmountMinor: row.transactionAmount,
        cashAmountMinor: row.cashAmount,
      })
    })
  }

  const refusals: { title: string; amount: number; direction: Direction; rule: FeeRule }[] = [
    {
      title: 'a cash-in whose merchant-borne fee takes it all',
      amount: 500,
      direction: 'cash-in',
      rule: { percentageMilli: 0, additionalFeeMinor: 500, supportedByAccount: true },
    },
    {
      title: 'a cash-out whose customer-borne fee takes it all',
      amount: 500,
      direction: 'cash-out',
      rule: { percentageMilli: 100_000, additionalFeeMinor: 0, supportedByAccount: false },
    },
    {
      title: 'a cash-in whose merchant-borne fee exceeds it',
      amount: 100,
      direction: 'cash-in',
      rule: { percentageMilli: 50_000, additionalFeeMinor: 51, supportedByAccount: true },
    },
  ]
  for (const refusal of refusals) {
    test(`no price for ${refusal.title}`, () => {
      assert.equal(price(refusal.amount, refusal.direction, refusal.rule), undefined)
    })
  }
  test('a fee leaving exactly one minor unit is still priced', () => {
    const rule = { percentageMilli: 0, additionalFeeMinor: 499, supportedByAccount: true }
    assert.equal(price(500, 'cash-in', rule)?.cashAmountMinor, 1)
  })

  test('for any amount, rule and direction: the table holds, or no price exactly when an amount is <= 0', () => {
    fc.assert(
      fc.property(amountMinor, feeRule, direction, (amount, rule, way) => {
        const fees = expectedFees(amount, rule)
        const expected = expectedAmounts(amount, fees, way, rule.supportedByAccount)
        const priced = price(amount, way, rule)
        if (expected.transactionAmountMinor <= 0 || expected.cashAmountMinor <= 0) {
          assert.equal(priced, undefined)
          return
        }
        assert.deepEqual(priced, { amountMinor: amount, feesMinor: fees, ...expected })
        // The fee is the whole difference between the two wallets: nothing appears or vanishes.
        const gap =
          way === 'cash-in'
            ? priced.transactionAmountMinor - priced.cashAmountMinor
            : priced.cashAmountMinor - priced.transactionAmountMinor
        assert.equal(gap, fees)
        for (const value of Object.values(priced))
          assert.ok(Number.isSafeInteger(value), `${value} is an integer`)
      }),
      { numRuns: 3_000 },
    )
  })

  test('a schedule rate survives the trip to the API and back (thousandths of a percent)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 100 * percentageScale }), (milli) => {
        assert.equal(percentageToMilli(milliToPercentage(milli)), milli)
      }),
      { numRuns: 1_000 },
    )
    assert.equal(percentageToMilli(1.5), 1_500)
    assert.equal(percentageToMilli(1.2345), undefined)
  })
})

describe('money: major units at the JSON boundary, integer minor units inside', () => {
  const conversions: { amount: number; currency: Currency; minor: number | undefined }[] = [
    { amount: 0, currency: 'XOF', minor: 0 },
    { amount: 10, currency: 'XOF', minor: 10 },
    { amount: 1_000_000, currency: 'XAF', minor: 1_000_000 },
    { amount: 10.5, currency: 'XOF', minor: undefined },
    { amount: 0.29, currency: 'GHS', minor: 29 },
    { amount: 1.1, currency: 'KES', minor: 110 },
    { amount: 1.005, currency: 'GHS', minor: undefined },
    { amount: 4503.37, currency: 'GHS', minor: 450_337 },
    // GHS wallet limits end at 20,000: their top must be expressible.
    { amount: 19_999.99, currency: 'GHS', minor: 1_999_999 },
    { amount: 4_999_999.99, currency: 'GHS', minor: 499_999_999 },
    { amount: 1.00000000001, currency: 'XOF', minor: undefined },
    { amount: 0.1 + 0.2, currency: 'GHS', minor: undefined }, // 0.30000000000000004
    { amount: Number.NaN, currency: 'XOF', minor: undefined },
    { amount: Number.POSITIVE_INFINITY, currency: 'XOF', minor: undefined },
  ]
  for (const row of conversions) {
    test(`${row.amount} ${row.currency} is ${row.minor === undefined ? 'refused' : `${row.minor} minor units`}`, () => {
      assert.equal(toMinorUnits(row.amount, row.currency), row.minor)
    })
  }

  const currencyNames = Object.keys(currencies) as Currency[]
  const currency = fc.constantFrom(...currencyNames)
  const minorUnits = fc.oneof(
    fc.integer({ min: 0, max: 100_000 }),
    fc.integer({ min: 0, max: maximumMinorUnits }),
  )

  test('toMajorUnits gives the number the decimal text of the amount parses to', () => {
    fc.assert(
      fc.property(currency, minorUnits, (name, minor) => {
        const scale = currencies[name].scale
        const digits = String(minor).padStart(scale + 1, '0')
        const text = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`
        assert.equal(toMajorUnits(minor, name), Number(text))
      }),
      { numRuns: 2_000 },
    )
  })

  test('every amount the API can answer with is accepted back as the same minor units', () => {
    fc.assert(
      fc.property(currency, minorUnits, (name, minor) => {
        assert.equal(toMinorUnits(toMajorUnits(minor, name), name), minor)
      }),
      { numRuns: 2_000 },
    )
  })

  test('an amount written with more decimals than its currency has is refused', () => {
    const excess = fc.record({
      name: currency,
      extraDecimals: fc.integer({ min: 1, max: 12 }),
      wholeSeed: fc.integer({ min: 0, max: maximumMinorUnits }),
      decimalsSeed: fc.bigInt({ min: 0n, max: 10n ** 14n }),
      lastDigit: fc.integer({ min: 1, max: 9 }),
    })
    fc.assert(
      fc.property(excess, ({ name, extraDecimals, wholeSeed, decimalsSeed, lastDigit }) => {
        const decimals = currencies[name].scale + extraDecimals
        // At most 15 significant digits, so the number keeps exactly the text it was written as.
        const whole = wholeSeed % 10 ** Math.max(0, 15 - decimals)
        const fraction = `${String(decimalsSeed % 10n ** BigInt(decimals - 1)).padStart(decimals - 1, '0')}${lastDigit}`
        const text = `${whole}.${fraction}`
        const amount = Number(text)
        fc.pre(String(amount) === text)
        assert.equal(toMinorUnits(amount, name), undefined, `${text} ${name}`)
      }),
      { numRuns: 2_000 },
    )
  })
})
