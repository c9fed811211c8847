import { type Mode, modes } from '../../domain/kinds.ts'
import { isCurrency } from '../../domain/money.ts'
import type { AppContext } from '../context.ts'
import { exportStatement, type Statement } from '../dashboard/balance-view.ts'
import type { ConsoleActor } from './merchant-actions.ts'
import { recordPlatformChange } from './platform-audit.ts'

/** The statement form as sent: the mode, a currency or '' for all, the range's instants (undefined for open). */
export interface StatementRequest {
  mode: string
  currency: string
  fromUs: number | undefined
  toUs: number | undefined
}

export type StatementRefusal = { refused: 'merchant_unknown' | 'mode_invalid' | 'currency_invalid' }

/**
 * Finance exports a merchant's CSV statement of one mode, optionally of one currency, for a date
 * range: the dashboard's and the API's statement (`exportStatement`, `openStatement`), so it takes
 * one of the merchant's export slots in that mode and its rows are read in turns with the other
 * long work; a busy merchant is the API's 429. In the merchant's audit (`statement.exported`) and
 * the platform's.
 */
export async function exportMerchantStatement(
  context: AppContext,
  actor: ConsoleActor,
  merchantId: string,
  request: StatementRequest,
): Promise<{ statement: Statement; mode: Mode } | StatementRefusal> {
  const mode = modes.find((known) => known === request.mode) as Mode | undefined
  if (!mode) return { refused: 'mode_invalid' }
  const currency = request.currency.trim()
  if (currency !== '' && !isCurrency(currency)) return { refused: 'currency_invalid' }
  const merchantName = await context.store.merchants.nameOf(merchantId)
  if (merchantName === undefined) return { refused: 'merchant_unknown' }
  const range = { fromUs: request.fromUs, toUs: request.toUs }
  const statement = await exportStatement(context, actor, { merchantId, merchantName, mode }, range)
  await recordPlatformChange(context, actor, {
    action: 'merchant.statement.exported',
    target: merchantId,
    after: {
      mode,
      currency: currency || null,
      from: range.fromUs === undefined ? null : new Date(range.fromUs / 1000).toISOString(),
      to: range.toUs === undefined ? null : new Date(range.toUs / 1000).toISOString(),
    },
  }).catch((error: unknown) => {
    statement.close()
    throw error
  })
  if (currency === '') return { statement, mode }
  const ofCurrency: Statement = {
    close: statement.close,
    chunks: (format) => statement.chunks((rows) => format(rows.filter((row) => row.currency === currency))),
  }
  return { statement: ofCurrency, mode }
}
