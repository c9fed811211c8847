import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import fc from 'fast-check'
import {
  type OperationKind,
  operationKindNames,
  operationKinds,
  type SideRole,
} from '../../src/domain/kinds.ts'
import {
  balanceOfEntries,
  expectedLedgerEntries,
  type LedgerEntryShape,
} from '../../src/domain/ledger-rules.ts'
import { cloneOperation, type Operation, type Side } from '../../src/domain/operation.ts'
import {
  applySideOutcome,
  chainTransitions,
  expiredReason,
  type LedgerEffect,
  type OutcomeSource,
  openOperation,
  type SideOutcome,
  type Transition,
} from '../../src/domain/transitions.ts'

/**
 * The state machine and its money, as pure functions (issue 9): every transition, and every
 * posting it asks for, with no database. The property at the end plays random lives of every kind
 * through a model ledger and checks it always ends where the ledger rules say it must.
 */

const clock = { nowUs: 1_000_000, operationTtlMs: 900_000, submissionGraceMs: 30_000 }
const declined = { code: 'insufficient_funds', message: 'No money.' }

function side(role: SideRole, kind: Side['kind'], cashAmountMinor: number): Side {
  return {
    role,
    kind,
    channel: 'orange-money',
    country: 'CI',
    currency: 'XOF',
    amountMinor: cashAmountMinor,
    feesMinor: 0,
    transactionAmountMinor: cashAmountMinor,
    cashAmountMinor,
    percentageMilli: 0,
    additionalFeeMinor: 0,
    supportedByAccount: true,
    customer: { fullName: '', phoneNumber: '+2250700000001', email: '' },
    status: 'pending',
  }
}

/** A new operation of the kind, its sides from the kinds table, the `from` of a transfer worth 1,000 and the rest 600. */
function draft(kind: OperationKind): Operation {
  return {
    id: 7,
    token: 'aaaaa-bbbbb-ccccc-ddddd-eeeee',
    merchantId: 'mer_test',
    mode: 'sandbox',
    kind,
    position: 1,
    status: 'pending',
    merchantReference: 'ref',
    requestHash: 'hash',
    currency: 'XOF',
    sides: operationKinds[kind].sides.map(({ role, sideKind }, index) =>
      side(role, sideKind, index === 0 ? 1000 : 600),
    ),
    urls: { callbackUrl: null },
    redirectUrl: null,
    failure: null,
    initiatedAtUs: clock.nowUs,
    completedAtUs: null,
    updatedAtUs: clock.nowUs,
  }
}

function submitted(kind: OperationKind): Operation {
  const opened = openOperation(draft(kind), clock).operation
  return applySideOutcome(opened, opened.sides[0]!.role, { status: 'pending' }, 'submission', clock).operation
}

describe('openOperation: a new operation', () => {
  const cases: [OperationKind, LedgerEffect[]][] = [
    ['collect', []],
    ['recharge', []],
    ['disbursement', [{ action: 'hold', entryType: 'cash-out', amountMinor: 1000, role: 'main' }]],
    ['withdraw', [{ action: 'hold', entryType: 'cash-out', amountMinor: 1000, role: 'main' }]],
    ['transfer', [{ action: 'hold', entryType: 'cash-out', amountMinor: 600, role: 'to' }]],
  ]
  for (const [kind, holds] of cases) {
    test(`${kind}: pending, every cash-out side held, one pending event, expiry and a submission backstop scheduled`, () => {
      const opened = openOperation(draft(kind), clock)
      assert.equal(opened.operation.status, 'pending')
      assert.deepEqual(opened.ledger, holds)
      assert.deepEqual(
        opened.statusesTaken.map((state) => state.status),
        ['pending'],
      )
      assert.deepEqual(opened.work, [
        { action: 'schedule', work: 'expire', role: 'main', dueAtUs: clock.nowUs + 900_000_000 },
        {
          action: 'schedule',
          work: 'submit',
          role: operationKinds[kind].sides[0].role,
          dueAtUs: clock.nowUs + 30_000_000,
        },
      ])
    })
  }
})

describe('applySideOutcome: a single-sided operation', () => {
  const cashIn: [SideOutcome, string, LedgerEffect[]][] = [
    [{ status: 'succeeded' }, 'succeeded', [{ action: 'credit', amountMinor: 1000 }]],
    [{ status: 'failed', reason: declined }, 'failed', []],
    [{ status: 'canceled', reason: declined }, 'canceled', []],
    [{ status: 'error', reason: declined }, 'error', []],
  ]
  for (const kind of ['collect', 'recharge'] as const) {
    for (const [outcome, status, ledger] of cashIn) {
      test(`${kind} ${outcome.status}: ${ledger.length ? 'credited' : 'no money moves'}, status ${status}, work closed`, () => {
        const transition = applySideOutcome(submitted(kind), 'main', outcome, 'provider', clock)
        assert.equal(transition.operation.status, status)
        assert.deepEqual(transition.ledger, ledger)
        assert.deepEqual(
          transition.statusesTaken.map((state) => state.status),
          [status],
        )
        assert.deepEqual(transition.work, [{ action: 'finish-all' }])
        assert.equal(transition.operation.completedAtUs, clock.nowUs)
      })
    }
  }
  const cashOut: [SideOutcome, 'succeeded' | 'canceled'][] = [
    [{ status: 'succeeded' }, 'succeeded'],
    [{ status: 'failed', reason: declined }, 'canceled'],
    [{ status: 'canceled', reason: declined }, 'canceled'],
    [{ status: 'error', reason: declined }, 'canceled'],
  ]
  for (const kind of ['disbursement', 'withdraw'] as const) {
    for (const [outcome, resolution] of cashOut) {
      test(`${kind} ${outcome.status}: the hold is ${resolution === 'succeeded' ? 'posted' : 'released'}`, () => {
        const transition = applySideOutcome(submitted(kind), 'main', outcome, 'provider', clock)
        assert.equal(transition.operation.status, outcome.status)
        assert.deepEqual(transition.ledger, [{ action: 'resolve', entryType: 'cash-out', resolution }])
        if (outcome.status !== 'succeeded') assert.deepEqual(transition.operation.failure, declined)
      })
    }
  }

  test('pending with a poll: nothing moves, no event, a poll is scheduled', () => {
    const transition = applySideOutcome(
      submitted('collect'),
      'main',
      { status: 'pending', pollAfterMs: 3000 },
      'provider',
      clock,
    )
    assert.equal(transition.operation.status, 'pending')
    assert.deepEqual(transition.ledger, [])
    assert.deepEqual(transition.statusesTaken, [])
    assert.deepEqual(transition.work, [
      { action: 'schedule', work: 'poll', role: 'main', dueAtUs: clock.nowUs + 3_000_000 },
    ])
  })

  test('pending for the customer: the side awaits the customer and the record gets the redirectUrl', () => {
    const outcome: SideOutcome = {
      status: 'pending',
      needsCustomerAction: true,
      redirectUrl: 'https://pay.example/x',
    }
    const transition = applySideOutcome(submitted('collect'), 'main', outcome, 'provider', clock)
    assert.equal(transition.operation.sides[0]!.awaitingCustomer, true)
    assert.equal(transition.operation.redirectUrl, 'https://pay.example/x')
  })

  test('a second outcome for a final side changes nothing: the first settles it', () => {
    const settled = applySideOutcome(
      submitted('disbursement'),
      'main',
      { status: 'succeeded' },
      'provider',
      clock,
    )
    const again = applySideOutcome(
      settled.operation,
      'main',
      { status: 'failed', reason: declined },
      'provider',
      clock,
    )
    assert.equal(again.changed, false)
    assert.deepEqual(again.ledger, [])
    assert.equal(again.operation.status, 'succeeded')
  })

  test('a side never handed to its provider: only expiry may end it', () => {
    const opened = openOperation(draft('collect'), clock).operation
    for (const source of ['provider', 'checkout'] as OutcomeSource[]) {
      assert.equal(
        applySideOutcome(opened, 'main', { status: 'succeeded' }, source, clock).changed,
        false,
        source,
      )
    }
    const expired = applySideOutcome(
      opened,
      'main',
      { status: 'canceled', reason: expiredReason },
      'expiry',
      clock,
    )
    assert.equal(expired.operation.status, 'canceled')
    assert.deepEqual(expired.operation.failure, expiredReason)
  })

  test('submission marks the side submitted, once', () => {
    const opened = openOperation(draft('collect'), clock).operation
    const first = applySideOutcome(opened, 'main', { status: 'pending' }, 'submission', clock).operation
    const later = applySideOutcome(first, 'main', { status: 'pending' }, 'submission', {
      ...clock,
      nowUs: clock.nowUs + 5,
    })
    assert.equal(later.operation.sides[0]!.submittedAtUs, clock.nowUs)
  })
})

describe('applySideOutcome: a transfer, its sides in order', () => {
  const fromSucceeded = () =>
    applySideOutcome(submitted('transfer'), 'from', { status: 'succeeded' }, 'provider', clock)

  test('from succeeds: credited, a refund reserve held, the to side due; still pending', () => {
    const transition = fromSucceeded()
    assert.equal(transition.operation.status, 'pending')
    assert.deepEqual(transition.ledger, [
      { action: 'credit', amountMinor: 1000 },
      { action: 'hold', entryType: 'reversal', amountMinor: 1000, role: 'from' },
    ])
    assert.deepEqual(transition.work, [
      { action: 'schedule', work: 'submit', role: 'to', dueAtUs: clock.nowUs + 30_000_000 },
    ])
    assert.deepEqual(transition.statusesTaken, [])
  })

  test('from fails: the to side is canceled without starting and its hold released; the transfer takes from\u2019s status', () => {
    const transition = applySideOutcome(
      submitted('transfer'),
      'from',
      { status: 'failed', reason: declined },
      'provider',
      clock,
    )
    assert.equal(transition.operation.status, 'failed')
    assert.equal(transition.operation.sides[1]!.status, 'canceled')
    assert.equal(transition.operation.sides[1]!.failure?.code, 'not_started')
    assert.deepEqual(transition.ledger, [
      { action: 'resolve', entryType: 'cash-out', resolution: 'canceled' },
    ])
  })

  const toSubmitted = () => {
    const after = fromSucceeded().operation
    return applySideOutcome(after, 'to', { status: 'pending' }, 'submission', clock).operation
  }

  test('to succeeds: the payout is posted, the reserve released; the transfer succeeded', () => {
    const transition = applySideOutcome(toSubmitted(), 'to', { status: 'succeeded' }, 'provider', clock)
    assert.equal(transition.operation.status, 'succeeded')
    assert.deepEqual(transition.ledger, [
      { action: 'resolve', entryType: 'reversal', resolution: 'canceled' },
      { action: 'resolve', entryType: 'cash-out', resolution: 'succeeded' },
    ])
  })

  test('to fails: the payout hold is released and the reserve posted, refunding from; the transfer failed', () => {
    const transition = applySideOutcome(
      toSubmitted(),
      'to',
      { status: 'error', reason: declined },
      'provider',
      clock,
    )
    assert.equal(transition.operation.status, 'failed', 'money moved (a refund), so not error')
    assert.deepEqual(transition.ledger, [
      { action: 'resolve', entryType: 'reversal', resolution: 'succeeded' },
      { action: 'resolve', entryType: 'cash-out', resolution: 'canceled' },
    ])
    assert.equal(transition.operation.failure?.message, `${declined.message} The from customer was refunded.`)
  })

  test('chained at once (a provider without I/O): one transition with both events and the net work', () => {
    const opened = openOperation(draft('collect'), clock)
    const settled = applySideOutcome(opened.operation, 'main', { status: 'succeeded' }, 'submission', clock)
    const chained = chainTransitions(opened, settled)
    assert.deepEqual(
      chained.statusesTaken.map((state) => state.status),
      ['pending', 'succeeded'],
    )
    assert.deepEqual(chained.work, [{ action: 'finish-all' }])
    assert.deepEqual(chained.ledger, [{ action: 'credit', amountMinor: 1000 }])
  })
})

/** A model ledger: what the effects do to one operation's entries, as the store's ledger does them. */
function playLedger(entries: LedgerEntryShape[], effects: readonly LedgerEffect[]): void {
  for (const effect of effects) {
    if (effect.action === 'credit')
      entries.push({ type: 'cash-in', status: 'succeeded', amountMinor: effect.amountMinor })
    else if (effect.action === 'hold')
      entries.push({ type: effect.entryType, status: 'pending', amountMinor: effect.amountMinor })
    else if (effect.action === 'hold-resolved')
      entries.push({ type: effect.entryType, status: effect.resolution, amountMinor: effect.amountMinor })
    else {
      const pending = entries.find((entry) => entry.type === effect.entryType && entry.status === 'pending')
      if (pending) pending.status = effect.resolution
    }
  }
}

const outcomeArbitrary: fc.Arbitrary<SideOutcome> = fc.oneof(
  fc.constant<SideOutcome>({ status: 'succeeded' }),
  fc.constant<SideOutcome>({ status: 'pending', pollAfterMs: 10 }),
  ...(['failed', 'canceled', 'error'] as const).map((status) =>
    fc.constant<SideOutcome>({ status, reason: declined }),
  ),
)

describe('every life of every kind', () => {
  test('the entries the transitions write are exactly those the ledger rules expect, and never overdraw', () => {
    const step = fc.record({
      sideIndex: fc.nat(1),
      outcome: outcomeArbitrary,
      source: fc.constantFrom<OutcomeSource>('submission', 'provider', 'checkout', 'expiry'),
    })
    fc.assert(
      fc.property(fc.constantFrom(...operationKindNames), fc.array(step, { maxLength: 8 }), (kind, steps) => {
        let transition: Transition = openOperation(draft(kind), clock)
        const entries: LedgerEntryShape[] = []
        playLedger(entries, transition.ledger)
        for (const { sideIndex, outcome, source } of steps) {
          const role = transition.operation.sides[sideIndex % transition.operation.sides.length]!.role
          transition = applySideOutcome(transition.operation, role, outcome, source, clock)
          playLedger(entries, transition.ledger)
          // Each side holds its cash amount at most once (a payout's hold, or a refund reserve).
          const balance = balanceOfEntries(entries)
          const mostHeld = transition.operation.sides.reduce((sum, side) => sum + side.cashAmountMinor, 0)
          assert.ok(balance.heldMinor >= 0 && balance.heldMinor <= mostHeld, `held ${balance.heldMinor}`)
        }
        const key = (entry: LedgerEntryShape) => `${entry.type} ${entry.status} ${entry.amountMinor}`
        assert.deepEqual(
          entries.map(key).sort(),
          expectedLedgerEntries(transition.operation.sides).map(key).sort(),
        )
      }),
      { numRuns: 2000 },
    )
  })
})

describe('written at once: a provider that answers without I/O settles in the initiation\u2019s own write', () => {
  test('a payout paid at once is one entry written settled, not a hold and its posting', () => {
    const opened = openOperation(draft('disbursement'), clock)
    const paid = applySideOutcome(opened.operation, 'main', { status: 'succeeded' }, 'submission', clock)
    assert.deepEqual(chainTransitions(opened, paid).ledger, [
      {
        action: 'hold-resolved',
        entryType: 'cash-out',
        amountMinor: 1000,
        role: 'main',
        resolution: 'succeeded',
      },
    ])
  })

  test('a payout refused at once is one entry written released: the funds were still checked', () => {
    const opened = openOperation(draft('withdraw'), clock)
    const refused = applySideOutcome(
      opened.operation,
      'main',
      { status: 'failed', reason: declined },
      'submission',
      clock,
    )
    assert.deepEqual(chainTransitions(opened, refused).ledger, [
      {
        action: 'hold-resolved',
        entryType: 'cash-out',
        amountMinor: 1000,
        role: 'main',
        resolution: 'canceled',
      },
    ])
  })

  test('every kind, every chain of outcomes at once: the entries are those the rules expect, and no hold is left to resolve', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...operationKindNames),
        fc.array(outcomeArbitrary, { minLength: 1, maxLength: 3 }),
        (kind, outcomes) => {
          let chained: Transition = openOperation(draft(kind), clock)
          for (const outcome of outcomes) {
            const side = chained.operation.sides.find((candidate) => candidate.status === 'pending')
            if (!side) break
            const next = applySideOutcome(chained.operation, side.role, outcome, 'submission', clock)
            chained = chainTransitions(chained, next)
          }
          const entries: LedgerEntryShape[] = []
          playLedger(entries, chained.ledger)
          const key = (entry: LedgerEntryShape) => `${entry.type} ${entry.status} ${entry.amountMinor}`
          assert.deepEqual(
            entries.map(key).sort(),
            expectedLedgerEntries(chained.operation.sides).map(key).sort(),
          )
          const held = chained.ledger.filter((effect) => effect.action === 'hold')
          const resolved = chained.ledger.filter((effect) => effect.action === 'resolve')
          assert.ok(
            !resolved.some((effect) => held.some((hold) => hold.entryType === effect.entryType)),
            'a hold made and resolved in one write is one effect',
          )
        },
      ),
      { numRuns: 1000 },
    )
  })
})

describe('cloneOperation: a transition never changes the state it was given', () => {
  const full: Operation = {
    ...draft('transfer'),
    failure: { code: 'declined', message: 'No.' },
    metadata: { order: '42' },
    refundOf: { id: 3, token: 'zzzzz-zzzzz-zzzzz-zzzzz-zzzzz' },
    refunds: { refundableMinor: 1000, refundedMinor: 200 },
    urls: { callbackUrl: 'https://merchant.example/callbacks', failedUrl: 'https://merchant.example/failed' },
  }
  full.sides[0]!.failure = { code: 'declined', message: 'No.' }
  full.sides[1]!.operatorReference = 'op-ref'

  test('the copy equals the operation, field by field (as structuredClone would give it)', () => {
    for (const operation of [full, ...operationKindNames.map(draft)])
      assert.deepStrictEqual(cloneOperation(operation), structuredClone(operation))
  })

  test('no object of the copy is shared with the operation: changing the copy leaves it as it was', () => {
    const before = structuredClone(full)
    const copy = cloneOperation(full)
    copy.sides[0]!.customer.phoneNumber = '+2250000000000'
    copy.sides[0]!.failure!.code = 'changed'
    copy.sides[1]!.status = 'succeeded'
    copy.sides.push(copy.sides[0]!)
    copy.urls.callbackUrl = null
    copy.failure!.message = 'changed'
    copy.metadata!.order = 'changed'
    copy.refundOf!.id = 9
    copy.refunds!.refundedMinor = 0
    assert.deepStrictEqual(full, before)
  })
})
