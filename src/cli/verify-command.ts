import type { AppContext } from '../app/context.ts'
import { verifyStore } from '../app/verify-store.ts'
import { CommandError } from './usage.ts'

/** sika verify: the whole store against the invariants; exit 1 naming each inconsistency. */
export async function verify(context: AppContext, json: boolean, print: (text: string) => void) {
  const report = await verifyStore(context)
  const { accounts, operations, counters } = report.checked
  const { inconsistencies, owedToCustomers } = report
  if (json) print(JSON.stringify(report))
  else {
    for (const found of inconsistencies) print(`${found.subject}: ${found.problem}`)
    for (const debt of owedToCustomers) print(`owed to a customer: ${debt.subject}: ${debt.owed}`)
    print(
      `checked ${accounts} balances, ${counters} counters and ${operations} operations: ${
        inconsistencies.length === 0 ? 'consistent' : `${inconsistencies.length} inconsistencies`
      }${owedToCustomers.length === 0 ? '' : `; ${owedToCustomers.length} customers are owed money`}`,
    )
  }
  if (inconsistencies.length > 0)
    throw new CommandError(`the store is inconsistent (${inconsistencies.length} problems)`)
  // The ledger adds up, but a customer must still be paid back by a person.
  if (owedToCustomers.length > 0)
    throw new CommandError(`${owedToCustomers.length} customers are owed money their refund did not pay`)
}
