import type { AppContext } from '../app/context.ts'
import { verifyStore } from '../app/verify-store.ts'
import { CommandError } from './usage.ts'

/** sika verify: the whole store against the invariants; exit 1 naming each inconsistency. */
export async function verify(context: AppContext, json: boolean, print: (text: string) => void) {
  const report = await verifyStore(context)
  const { accounts, operations, counters } = report.checked
  if (json) print(JSON.stringify(report))
  else {
    for (const found of report.inconsistencies) print(`${found.subject}: ${found.problem}`)
    print(
      `checked ${accounts} balances, ${counters} counters and ${operations} operations: ${
        report.inconsistencies.length === 0
          ? 'consistent'
          : `${report.inconsistencies.length} inconsistencies`
      }`,
    )
  }
  if (report.inconsistencies.length > 0)
    throw new CommandError(`the store is inconsistent (${report.inconsistencies.length} problems)`)
}
