import assert from 'node:assert/strict'
import { verifyStore } from '../../src/app/verify-store.ts'
import type { TestApp } from './app.ts'

/** `sika verify` over the app's store, in process: fails naming every inconsistency it finds. */
export async function assertStoreConsistent(app: TestApp, where = 'the store'): Promise<void> {
  const report = await verifyStore(app.context)
  const lines = report.inconsistencies.map((found) => `  ${found.subject}: ${found.problem}`)
  assert.equal(lines.length, 0, `${where} is inconsistent:\n${lines.join('\n')}`)
  const owed = report.owedToCustomers.map((debt) => `  ${debt.subject}: ${debt.owed}`)
  assert.equal(owed.length, 0, `${where} owes customers money:\n${owed.join('\n')}`)
}
