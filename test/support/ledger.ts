import assert from 'node:assert/strict'
import type { TestApp } from './app.ts'

/**
 * A merchant's money as the store holds it, and the rule that ties balances to the ledger
 * (CONTRACT.md, Balances and the ledger): posted is the sum of the postings, held the sum of the
 * pending holds. Read straight from the rows, so a test sees what the API might hide.
 */

/** The sandbox XOF balance, where test operations move money by default. */
export async function xofBalance(
  app: TestApp,
  merchantId: string,
): Promise<{ posted: number; held: number }> {
  const row = await app.db
    .selectFrom('balances')
    .select(['posted_minor', 'held_minor'])
    .where('merchant_id', '=', merchantId)
    .where('mode', '=', 'sandbox')
    .where('currency', '=', 'XOF')
    .executeTakeFirstOrThrow()
  return { posted: row.posted_minor, held: row.held_minor }
}

/** What the merchant may still spend: posted money that no hold reserves. */
export function availableOf(balance: { posted: number; held: number }): number {
  return balance.posted - balance.held
}

/** Every balance row of the merchant (one per mode and currency), in a stable order. */
export function readBalances(app: TestApp, merchantId: string) {
  return app.db
    .selectFrom('balances')
    .select(['mode', 'currency', 'posted_minor', 'held_minor'])
    .where('merchant_id', '=', merchantId)
    .orderBy('mode')
    .orderBy('currency')
    .execute()
}

/** Every ledger entry of the merchant, in every mode and currency. */
export function readLedgerEntries(app: TestApp, merchantId: string) {
  return app.db.selectFrom('ledger_entries').selectAll().where('merchant_id', '=', merchantId).execute()
}

/** The entries one operation wrote, by type. */
export function entriesOfOperation(app: TestApp, token: string) {
  return app.db
    .selectFrom('ledger_entries')
    .innerJoin('operations', 'operations.id', 'ledger_entries.operation_id')
    .select(['ledger_entries.type', 'ledger_entries.status', 'ledger_entries.amount_minor'])
    .where('operations.token', '=', token)
    .orderBy('ledger_entries.type')
    .execute()
}

/** How many rows of a table belong to the merchant. */
export async function countRows(
  app: TestApp,
  table: 'operations' | 'ledger_entries',
  merchantId: string,
): Promise<number> {
  const row = await app.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('merchant_id', '=', merchantId)
    .executeTakeFirstOrThrow()
  return Number(row.count)
}

/** The account a balance row or a ledger entry belongs to. */
export function accountOf(row: { mode: string; currency: string }): string {
  return `${row.mode}/${row.currency}`
}

interface Entry {
  type: string
  status: string
  amount_minor: number
}

function sumOf(entries: readonly Entry[], type: string, status: string): number {
  return entries
    .filter((entry) => entry.type === type && entry.status === status)
    .reduce((total, entry) => total + entry.amount_minor, 0)
}

/** What the entries of one account say is posted: credits, less payouts and refunds. */
export function postingsOf(entries: readonly Entry[]): number {
  return (
    sumOf(entries, 'cash-in', 'succeeded') -
    sumOf(entries, 'cash-out', 'succeeded') -
    sumOf(entries, 'reversal', 'succeeded')
  )
}

/** What the entries of one account say is held: payouts and refund reserves not yet resolved. */
export function holdsOf(entries: readonly Entry[]): number {
  return sumOf(entries, 'cash-out', 'pending') + sumOf(entries, 'reversal', 'pending')
}

/** Posted equals the sum of postings and held the sum of pending holds, for one account's entries. */
export function assertBalanceMatchesEntries(
  balance: { posted_minor: number; held_minor: number },
  entries: readonly Entry[],
  where: string,
): void {
  assert.equal(balance.posted_minor, postingsOf(entries), `${where}: posted equals the sum of postings`)
  assert.equal(balance.held_minor, holdsOf(entries), `${where}: held equals the sum of pending holds`)
}
