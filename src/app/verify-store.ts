import { balanceOfEntries, expectedLedgerEntries, type LedgerEntryShape } from '../domain/ledger-rules.ts'
import { toMajorUnits } from '../domain/money.ts'
import { sideAwaitingSubmission } from '../domain/operation.ts'
import {
  type AccountKey,
  type BalanceRow,
  type ConsistencyFacts,
  type CounterFact,
  type EntrySum,
  type OperationFacts,
  readConsistencyFacts,
} from '../store/consistency-checks.ts'
import type { AppContext } from './context.ts'

/** One thing the store holds that the rules say it must not, named so an operator can find it. */
export interface Inconsistency {
  subject: string
  problem: string
}

/**
 * Money a customer is owed: a live operation stopped after that customer paid, and the refund
 * that was to pay them back through their operator did not. The ledger adds up (the merchant's
 * balance keeps what it was credited), but a person must pay the customer back.
 */
export interface CustomerDebt {
  subject: string
  owed: string
}

export interface VerificationReport {
  inconsistencies: Inconsistency[]
  owedToCustomers: CustomerDebt[]
  checked: { accounts: number; operations: number; counters: number }
}

/**
 * The invariants every write must keep, checked over the whole store (`sika verify`): each
 * balance equals its postings and holds; each counter equals the rows it numbered; each operation
 * has the ledger entries its sides' states call for, one event per status it took, and, while
 * pending, the scheduled work that will end it; each payout batch has its one event once it has
 * concluded, and none before; each status count equals the rows it counts. A half-committed write
 * breaks at least one.
 */
export async function verifyStore(context: AppContext, batchSize = 500): Promise<VerificationReport> {
  return readConsistencyFacts(context.store, (facts) => verifyFacts(facts, batchSize))
}

async function verifyFacts(facts: ConsistencyFacts, batchSize: number): Promise<VerificationReport> {
  const inconsistencies: Inconsistency[] = []
  const owedToCustomers: CustomerDebt[] = []
  const accounts = checkBalances(await facts.balances(), await facts.ledgerSumsByAccount(), inconsistencies)
  const counters = await facts.counters()
  checkCounters(counters, await facts.numberedRows(), inconsistencies)
  let operations = 0
  for (let afterId = 0; ; ) {
    const batch = await facts.operationsAfter(afterId, batchSize)
    if (batch.length === 0) break
    for (const operation of batch) {
      checkOperation(operation, inconsistencies)
      owedToCustomers.push(...customerDebtsOf(operation))
    }
    operations += batch.length
    afterId = batch[batch.length - 1]!.id
  }
  await checkPayoutBatches(facts, batchSize, inconsistencies)
  for (const mismatch of await facts.refundClaimMismatches())
    inconsistencies.push({
      subject: `operation ${mismatch.token}`,
      problem: `records ${mismatch.recordedMinor} refunded, but its live refunds hold or posted ${mismatch.claimedMinor}`,
    })
  for (const fact of await facts.statusCounts())
    if (fact.recorded !== fact.rows)
      inconsistencies.push({
        subject: `status count ${fact.block}`,
        problem: `records ${fact.recorded} operations, but ${fact.rows} rows are in it: lists filtered on status show wrong totals`,
      })
  return { inconsistencies, owedToCustomers, checked: { accounts, operations, counters: counters.length } }
}

function customerDebtsOf(facts: OperationFacts): CustomerDebt[] {
  return facts.sides.flatMap((side) => {
    const refund = side.customerRefund
    if (!refund || refund.status === 'pending' || refund.status === 'succeeded') return []
    return [
      {
        subject: `${facts.kind} ${facts.token}`,
        owed: `${toMajorUnits(side.cashAmountMinor, side.currency)} ${side.currency} to its ${side.role} customer ${side.customer.phoneNumber} (${side.channel} ${side.country}): refund ${refund.token} ended ${refund.status}`,
      },
    ]
  })
}

const accountName = (key: AccountKey) => `balance ${key.merchantId} ${key.mode} ${key.currency}`

function checkBalances(balances: BalanceRow[], sums: EntrySum[], found: Inconsistency[]): number {
  const entriesByAccount = new Map<string, LedgerEntryShape[]>()
  for (const sum of sums) {
    const name = accountName(sum)
    const entry = { type: sum.type, status: sum.status, amountMinor: sum.amountMinor } as LedgerEntryShape
    entriesByAccount.set(name, [...(entriesByAccount.get(name) ?? []), entry])
  }
  for (const balance of balances) {
    const name = accountName(balance)
    const expected = balanceOfEntries(entriesByAccount.get(name) ?? [])
    entriesByAccount.delete(name)
    if (balance.postedMinor !== expected.postedMinor)
      found.push({
        subject: name,
        problem: `posted ${balance.postedMinor} but its postings sum to ${expected.postedMinor} (off by ${balance.postedMinor - expected.postedMinor})`,
      })
    if (balance.heldMinor !== expected.heldMinor)
      found.push({
        subject: name,
        problem: `held ${balance.heldMinor} but its open holds sum to ${expected.heldMinor} (off by ${balance.heldMinor - expected.heldMinor})`,
      })
    if (balance.heldMinor > balance.postedMinor)
      found.push({
        subject: name,
        problem: `held ${balance.heldMinor} exceeds posted ${balance.postedMinor}`,
      })
  }
  for (const [name, entries] of entriesByAccount) {
    const orphan = balanceOfEntries(entries)
    if (orphan.postedMinor !== 0 || orphan.heldMinor !== 0)
      found.push({
        subject: name,
        problem: 'ledger entries move money on an account that has no balance row',
      })
  }
  return balances.length
}

type Counter = CounterFact
type Numbered = CounterFact & { highest: number }

function checkCounters(counters: Counter[], numbered: Numbered[], found: Inconsistency[]): void {
  const key = (fact: Counter) => `${fact.merchantId} ${fact.mode} ${fact.name}`
  const rows = new Map(numbered.map((fact) => [key(fact), fact]))
  for (const counter of counters) {
    const counted = rows.get(key(counter)) ?? { value: 0, highest: 0 }
    rows.delete(key(counter))
    if (counted.value !== counter.value || counted.highest !== counter.value)
      found.push({
        subject: `counter ${key(counter)}`,
        problem: `is ${counter.value} but numbers ${counted.value} rows (highest ${counted.highest})`,
      })
  }
  for (const [name, fact] of rows)
    found.push({ subject: `counter ${name}`, problem: `missing, yet ${fact.value} rows are numbered` })
}

/**
 * A payout batch's own events: one, `payout_batch.<status>`, once it has concluded (completed,
 * rejected or canceled), none before; each kept beside its first item's operation, under its
 * merchant and mode.
 */
async function checkPayoutBatches(
  facts: ConsistencyFacts,
  batchSize: number,
  found: Inconsistency[],
): Promise<void> {
  for (let afterId = 0; ; ) {
    const batches = await facts.payoutBatchesAfter(afterId, batchSize)
    if (batches.length === 0) break
    for (const batch of batches) {
      const concluded = ['completed', 'rejected', 'canceled'].includes(batch.status)
      const expected = concluded ? [`payout_batch.${batch.status}`] : []
      const types = batch.events.map((event) => event.type)
      if (expected.join(', ') !== types.join(', '))
        found.push({
          subject: `payout batch ${batch.token} (${batch.status})`,
          problem: `events [${types.join(', ')}] but expected [${expected.join(', ')}]`,
        })
    }
    afterId = batches[batches.length - 1]!.id
  }
  for (const event of await facts.misplacedBatchEvents())
    found.push({
      subject: `payout batch ${event.batchToken}`,
      problem: `its event ${event.id} (${event.type}) is kept beside another operation than its first item's, or under another merchant or mode`,
    })
}

const describeEntries = (entries: readonly { type: string; status: string; amountMinor: number }[]) =>
  entries
    .map((entry) => `${entry.type} ${entry.status} ${entry.amountMinor}`)
    .sort()
    .join(', ')

function checkOperation(facts: OperationFacts, found: Inconsistency[]): void {
  const subject = `operation ${facts.token} (${facts.kind}, ${facts.status})`
  const expectedEntries = describeEntries(expectedLedgerEntries(facts.sides))
  const actualEntries = describeEntries(facts.entries)
  if (expectedEntries !== actualEntries)
    found.push({
      subject,
      problem: `ledger entries [${actualEntries}] but its sides call for [${expectedEntries}]`,
    })
  const expectedEvents = [
    `${facts.kind}.pending`,
    ...(facts.status === 'pending' ? [] : [`${facts.kind}.${facts.status}`]),
  ]
  const { eventTypes } = facts
  if (expectedEvents.join(', ') !== eventTypes.join(', '))
    found.push({
      subject,
      problem: `events [${eventTypes.join(', ')}] but expected [${expectedEvents.join(', ')}]`,
    })
  checkScheduledWork(facts, subject, found)
}

function checkScheduledWork(facts: OperationFacts, subject: string, found: Inconsistency[]): void {
  const open = new Set(facts.openWork.map((work) => work.kind))
  if (facts.status !== 'pending') {
    if (open.size > 0)
      found.push({ subject, problem: `final, yet scheduled work is open: ${[...open].join(', ')}` })
    return
  }
  // An item queued in its payout batch expires only once the batch worker dispatches it.
  const queued = facts.sides.some((side) => side.queuedInBatch)
  if (!open.has('expire') && !queued)
    found.push({ subject, problem: 'pending with no expiry scheduled: it would never end' })
  const waiting = sideAwaitingSubmission(facts.sides)
  if (waiting && !open.has('submit'))
    found.push({
      subject,
      problem: `its ${waiting.role} side was never handed to its provider and no submission is scheduled`,
    })
}
