import { randomUUID } from 'node:crypto'
import type { BookKeeper } from '../book-control.ts'
import { fromUnits } from '../decimal-units.ts'
import type { Exchange } from '../http-io.ts'
import { type AccountLine, accountCurrency } from './accounts.ts'
import { sendJson } from './http-io.ts'
import { forceStatus } from './settlement.ts'
import type { SimulatorState } from './state.ts'

/** The MoMo side of the shared book control paths: accounts by product, lines as MoMo transactions. */
export function accountKeeper(state: SimulatorState): BookKeeper<AccountLine> {
  const line = (account: string, amountUnits: bigint, atMs: number, referenceId = randomUUID()) => ({
    lineId: referenceId,
    paymentId: referenceId,
    atMs,
    direction: account === 'collection' ? ('in' as const) : ('out' as const),
    amountUnits,
    feeUnits: 0n,
    detail: { referenceId, resource: account === 'collection' ? 'requesttopay' : 'transfer' },
  })
  return {
    accounts: () => state.accounts,
    accountOf: (paymentId) => [...state.accounts.values()].find((book) => book.linesOf(paymentId).length > 0),
    strangerLine: (account, amountUnits, _direction, atMs) => line(account, amountUnits, atMs),
    seededLine: (account, index, atMs) => line(account, BigInt(100 + (index % 900)) * 10_000n, atMs),
    copyLineId: (copied) => `${copied.lineId}-2`,
    // The partner portal's export, in the columns the guide documents (MTN publishes no format).
    exportRow: (_account, exported) => ({
      'Transaction ID': exported.lineId,
      'External ID': exported.paymentId ?? '',
      Amount: fromUnits(exported.amountUnits),
      Date: new Date(exported.atMs).toISOString(),
      Status: 'SUCCESSFUL',
      Type: exported.detail?.resource ?? (exported.direction === 'in' ? 'requesttopay' : 'transfer'),
      Currency: accountCurrency(state.config),
    }),
    succeedSilently: (referenceId) => {
      const transaction = state.ledger.withReference(referenceId)[0]
      if (transaction === undefined) return false
      forceStatus(state, transaction, { status: 'SUCCESSFUL', callback: false })
      return true
    },
    sendJson: ({ response }: Exchange, status, body) => sendJson(response, status, body),
  }
}
