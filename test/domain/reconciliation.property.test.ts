import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import type { OperatorLine } from '../../src/domain/operator-lines.ts'
import { type MatchInput, matchDay, type SikaSide } from '../../src/domain/reconciliation.ts'

/** CONTRACT.md, Reconciliation: the matcher joins lines to sides by reference, whatever their order. */

const side = (index: number, fields: Partial<SikaSide> = {}): SikaSide => ({
  operationId: index,
  token: `tok${index}`,
  role: 'main',
  operatorReference: `ref-${index}`,
  direction: 'cash-in',
  amountMinor: 1000 + index,
  currency: 'XOF',
  status: 'succeeded',
  ofTheDay: true,
  ...fields,
})

const line = (lineId: string, fields: Partial<OperatorLine> = {}): OperatorLine => ({
  account: 'BEN/XOF',
  lineId,
  kind: 'payment',
  references: {},
  direction: 'cash-in',
  amountMinor: 1000,
  feeMinor: 0,
  balanceEffectMinor: 1000,
  currency: 'XOF',
  status: 'succeeded',
  atUs: 1,
  raw: {},
  ...fields,
})

const lineOf = (
  sikaSide: SikaSide,
  lineId = `L-${sikaSide.operationId}`,
  fields: Partial<OperatorLine> = {},
) =>
  line(lineId, {
    references: { operatorReference: sikaSide.operatorReference! },
    amountMinor: sikaSide.amountMinor,
    balanceEffectMinor: sikaSide.amountMinor,
    direction: sikaSide.direction,
    ...fields,
  })

test('a clean day matches every line, with no break', () => {
  const sides = [side(1), side(2, { direction: 'cash-out' })]
  const result = matchDay({ sides, lines: sides.map((each) => lineOf(each)), accounts: [] })
  assert.deepEqual(result.breaks, [])
  assert.equal(result.lines, 2)
  assert.equal(result.matched, 2)
  assert.equal(result.matchedAmountMinor, 1001 + 1002)
})

test('each kind of break, once, with its side and amount', () => {
  const sides = [
    side(1),
    side(2),
    side(3, { status: 'pending' }),
    side(4),
    side(5, { ofTheDay: false, status: 'succeeded' }),
  ]
  const lines = [
    lineOf(sides[0]!, 'L-1', { amountMinor: 999 }),
    lineOf(sides[2]!),
    lineOf(sides[3]!, 'L-4a'),
    lineOf(sides[3]!, 'L-4b'),
    line('stranger', { references: { operatorReference: 'unknown' }, amountMinor: 700 }),
  ]
  const accounts = [
    {
      account: 'BEN/XOF',
      currency: 'XOF' as const,
      openingBalanceMinor: 0,
      closingBalanceMinor: 1,
      excludedEffectMinor: 0,
    },
  ]
  const { breaks } = matchDay({ sides, lines, accounts })
  const summary = breaks.map((found) => [found.kind, found.reference, found.amountMinor])
  const effects = lines.reduce((sum, each) => sum + each.balanceEffectMinor, 0)
  assert.deepEqual(summary, [
    ['amount_mismatch', 'tok1.main', 2],
    ['balance_drift', 'BEN/XOF/lines', effects - 1],
    ['duplicate', 'tok4.main', 1004],
    ['missing_at_operator', 'tok2.main', 1002],
    ['missing_in_sika', 'stranger', 700],
    ['status_mismatch', 'tok3.main', 1003],
  ])
})

test('the balance API disagreeing with the closing balance is a drift', () => {
  const accounts = [
    {
      account: 'wallet',
      currency: 'XOF' as const,
      openingBalanceMinor: 10,
      closingBalanceMinor: 10,
      excludedEffectMinor: 0,
    },
  ]
  const { breaks } = matchDay({
    sides: [],
    lines: [],
    accounts,
    balances: [{ account: 'wallet', currency: 'XOF', balanceMinor: 25 }],
  })
  assert.deepEqual(
    breaks.map((found) => [found.kind, found.reference, found.amountMinor]),
    [['balance_drift', 'wallet/balance', 15]],
  )
})

test('a line outside the day counts in the balance only', () => {
  const sides = [side(1)]
  const result = matchDay({
    sides,
    lines: [lineOf(sides[0]!, 'L-1', { atUs: 50 })],
    accounts: [],
    day: { startAtUs: 0, endAtUs: 10 },
  })
  assert.equal(result.lines, 0)
  assert.deepEqual(
    result.breaks.map((found) => found.kind),
    ['missing_at_operator'],
  )
})

/** Sides, and lines for some of them (some twice, some with another amount or status), and lines for none. */
const dayArbitrary = fc
  .array(
    fc.record({
      status: fc.constantFrom('succeeded', 'pending', 'failed'),
      lineCount: fc.integer({ min: 0, max: 3 }),
      amountDelta: fc.constantFrom(0, 0, 0, 5),
      lineStatus: fc.constantFrom('succeeded', 'succeeded', 'failed', 'pending'),
      byToken: fc.boolean(),
    }),
    { maxLength: 30 },
  )
  .chain((specs) =>
    fc.record({
      specs: fc.constant(specs),
      strangers: fc.array(fc.integer({ min: 1, max: 10_000 }), { maxLength: 5 }),
      order: fc.array(fc.nat(), { minLength: 200, maxLength: 200 }),
    }),
  )

function dayOf(value: any): MatchInput {
  const sides: SikaSide[] = []
  const lines: OperatorLine[] = []
  value.specs.forEach((spec: any, index: number) => {
    const own = side(index, { status: spec.status })
    sides.push(own)
    for (let copy = 0; copy < spec.lineCount; copy++)
      lines.push(
        lineOf(own, `L-${index}-${copy}`, {
          amountMinor: own.amountMinor + spec.amountDelta,
          status: spec.lineStatus,
          references: spec.byToken
            ? { side: { token: own.token, role: 'main' } }
            : { operatorReference: own.operatorReference! },
        }),
      )
  })
  value.strangers.forEach((amount: number, index: number) => {
    lines.push(
      line(`S-${index}`, { references: { operatorReference: `stranger-${index}` }, amountMinor: amount }),
    )
  })
  return { sides, lines, accounts: [] }
}

function shuffled<T>(items: readonly T[], order: readonly number[]): T[] {
  const copy = [...items]
  for (let index = copy.length - 1; index > 0; index--) {
    const other = order[index % order.length]! % (index + 1)
    ;[copy[index], copy[other]] = [copy[other]!, copy[index]!]
  }
  return copy
}

test('any set of lines and sides, shuffled, matches the same way', () => {
  fc.assert(
    fc.property(dayArbitrary, (value) => {
      const input = dayOf(value)
      const first = matchDay(input)
      const again = matchDay({
        ...input,
        sides: shuffled(input.sides, value.order),
        lines: shuffled(input.lines, [...value.order].reverse()),
      })
      assert.deepEqual(again, first)
      // Every payment line is matched, or named by a break, or a line that moved nothing for a side Sika lacks.
      assert.ok(first.matched <= first.lines)
      const keys = first.breaks.map((found) => `${found.kind}/${found.reference}`)
      assert.equal(new Set(keys).size, keys.length, 'one break per kind and reference')
    }),
    { numRuns: 300 },
  )
})
