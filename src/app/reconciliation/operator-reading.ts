import { createHash } from 'node:crypto'
import type { OperatorLine, StatementAccount, StatementWindow } from '../../domain/operator-lines.ts'
import type { BalanceReading } from '../../domain/reconciliation.ts'
import type { StatementFile } from '../../providers/provider.ts'
import type { LiveConnection } from '../../providers/registry.ts'
import type { AppContext } from '../context.ts'
import { importedLines } from './imports.ts'

/** What the operator gave for a run: its lines, its accounts' balances, and the documents as received. */
export interface OperatorSide {
  lines: OperatorLine[]
  accounts: StatementAccount[]
  balances?: BalanceReading[]
  files: StatementFile[]
  /** Whether any statement (the API's, or an imported file) covers the day. */
  hasStatement: boolean
}

/** How long pawaPay's asynchronous statement is waited for, at most. */
export const statementWaitMs = 10 * 60_000
/** How long after the day the statement is read on to the present, for the balance API's proof. */
const tailReadMs = 2 * 86_400_000

export const sha256Of = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex')

/**
 * Reads the operator outside any transaction. The balance API first, at an instant T; then the
 * statement from the day's start to T, so that its closing balance and the balance API's answer
 * describe the same instant (a day long past is read alone, without the balance's proof). A
 * connection without a statement API gives the lines of the files imported for the day.
 */
export async function readOperator(
  context: AppContext,
  connection: LiveConnection,
  day: string,
  window: StatementWindow,
  signal?: AbortSignal,
): Promise<{ ok: true; value: OperatorSide } | { ok: false; reason: string }> {
  const { adapter } = connection
  const nowMs = context.clock.nowUs() / 1000
  const proveBalance = adapter.balance !== undefined && nowMs - window.endAtUs / 1000 < tailReadMs
  const files: StatementFile[] = []
  let balances: BalanceReading[] | undefined
  let readAtUs = window.endAtUs
  if (proveBalance) {
    readAtUs = Math.min(context.clock.nowUs(), Date.now() * 1000)
    const balance = await adapter.balance!()
    if (balance.ok) {
      balances = balance.value.map(({ account, currency, balanceMinor }) => ({
        account,
        currency,
        balanceMinor,
      }))
      const raw = new TextEncoder().encode(JSON.stringify(balance.value.map((each) => each.raw)))
      files.push({ name: `balance-${day}.json`, contentType: 'application/json', bytes: raw })
    }
  }
  if (adapter.statement === undefined) {
    const imported = await importedLines(context, connection.id, day)
    return { ok: true, value: { lines: imported, accounts: [], files, hasStatement: imported.length > 0 } }
  }
  // Read to T when the balance is proven (lines after the day count only in the balances).
  const statementWindow = { startAtUs: window.startAtUs, endAtUs: proveBalance ? readAtUs : window.endAtUs }
  const statement = await adapter.statement({
    window: statementWindow,
    waitMs: statementWaitMs,
    ...(signal ? { signal } : {}),
  })
  if (!statement.ok) return statement
  files.push(...statement.value.files)
  return {
    ok: true,
    value: {
      lines: [...statement.value.lines],
      accounts: [...statement.value.accounts],
      ...(balances ? { balances } : {}),
      files,
      hasStatement: true,
    },
  }
}
