import { tokenPattern } from '../../domain/identifiers.ts'
import type { Direction, SideRole } from '../../domain/kinds.ts'
import { type Currency, isCurrency, toMinorUnits } from '../../domain/money.ts'
import type { OperatorLine, OperatorLineReferences, OperatorLineStatus } from '../../domain/operator-lines.ts'
import { dayOf, dayWindow } from '../../domain/reconciliation-days.ts'
import { ApiError } from '../../errors.ts'
import { csvRecords } from '../../providers/csv-records.ts'
import type { AppContext } from '../context.ts'
import type { AlsoWithin } from './breaks.ts'
import { sha256Of } from './operator-reading.ts'

/**
 * A statement exported from an operator's portal (MTN MoMo's and Orange Money's publish no
 * statement API), imported by a finance member: a CSV whose columns a mapping names. The file is
 * kept byte for byte under each day its rows cover, with its mapping; a run of such a day reads
 * its lines from it.
 */

/** The fields a line needs, each read from the column the mapping names. */
export const importFields = ['reference', 'amount', 'date', 'status', 'direction', 'currency', 'id'] as const
export type ImportField = (typeof importFields)[number]
export type ColumnMapping = Record<ImportField, string>

/**
 * The columns of a portal export when no mapping is given. The portals' export formats are not
 * published: these are the names the guide documents, and any other is given by `--columns`.
 */
export const defaultMapping: ColumnMapping = {
  id: 'Transaction ID',
  reference: 'External ID',
  amount: 'Amount',
  date: 'Date',
  status: 'Status',
  direction: 'Type',
  currency: 'Currency',
}

/** `reference=Ext Ref,amount=Montant`: the fields named, the others as by default. */
export function parseMapping(text: string | undefined): ColumnMapping {
  const mapping = { ...defaultMapping }
  if (text === undefined || text.trim() === '') return mapping
  for (const pair of text.split(',')) {
    const [field, column] = pair.split('=').map((part) => part.trim())
    if (!field || !column || !(importFields as readonly string[]).includes(field))
      throw new ApiError(
        'bad_request',
        `--columns takes field=column pairs for ${importFields.join(', ')}; "${pair}" is not one.`,
      )
    mapping[field as ImportField] = column
  }
  return mapping
}

const succeeded = /^(success(ful)?|succeeded|completed|approved|réussi|succès|ok)$/i
const failed = /^(fail(ed)?|rejected|declined|expired|cancel+ed|refused|échoué|annulé)$/i
const outgoing = /(debit|transfer|payout|disburse|withdraw|out|refund|retrait|décaissement)/i

function statusOf(text: string): OperatorLineStatus {
  if (succeeded.test(text.trim())) return 'succeeded'
  if (failed.test(text.trim())) return 'failed'
  return 'pending'
}

const tokenReference = new RegExp(`${tokenPattern.slice(0, -1)}(\\.(main|from|to))?$`)

/**
 * What an export's reference names: the side's operator reference (MTN's X-Reference-Id), the
 * operator's own id of it, or Sika's token itself (Orange Money's `order_id` is the token),
 * alone or as `<token>.<role>`.
 */
function referencesOf(reference: string): OperatorLineReferences {
  if (!tokenReference.test(reference)) return { operatorReference: reference, providerReference: reference }
  const [token, role = 'main'] = reference.split('.') as [string, SideRole?]
  return { operatorReference: reference, side: { token, role } }
}

/** The rows of an export as lines; a row that cannot be read (no reference, a bad amount) is skipped with its reason. */
export function linesOfExport(
  text: string,
  mapping: ColumnMapping,
  account: string,
  fallbackCurrency: Currency,
): { lines: OperatorLine[]; problems: string[] } {
  const lines: OperatorLine[] = []
  const problems: string[] = []
  csvRecords(text).forEach((row, index) => {
    const cell = (field: ImportField) => row[mapping[field]]?.trim() ?? ''
    const reference = cell('reference')
    const currencyText = cell('currency').toUpperCase()
    const currency = isCurrency(currencyText) ? currencyText : fallbackCurrency
    const amount = toMinorUnits(
      Math.abs(
        Number(
          cell('amount')
            .replace(/[\s\u00a0]/g, '')
            .replace(',', '.'),
        ),
      ),
      currency,
    )
    const atMs = Date.parse(cell('date'))
    if (reference === '' || amount === undefined || Number.isNaN(atMs)) {
      problems.push(
        `Row ${index + 2}: it needs a reference, an amount and a date (columns ${mapping.reference}, ${mapping.amount}, ${mapping.date}).`,
      )
      return
    }
    const direction: Direction = outgoing.test(cell('direction')) ? 'cash-out' : 'cash-in'
    const status = statusOf(cell('status') || 'success')
    const effect = status === 'succeeded' ? (direction === 'cash-in' ? amount : -amount) : 0
    lines.push({
      account,
      lineId: cell('id') || reference,
      kind: 'payment',
      references: referencesOf(reference),
      direction,
      amountMinor: amount,
      feeMinor: 0,
      balanceEffectMinor: effect,
      currency,
      status,
      atUs: atMs * 1000,
      raw: row,
    })
  })
  return { lines, problems }
}

/** What an import kept: the days its rows cover, its lines, and the rows that could not be read. */
export interface ImportedExport {
  days: string[]
  lines: number
  problems: string[]
}

/**
 * Keeps the export under each day its rows cover, with what the caller writes beside it (its
 * audit row) when it kept any, in one transaction.
 */
export async function importExport(
  context: AppContext,
  connectionId: string,
  bytes: Uint8Array,
  mappingText: string | undefined,
  alsoWithin?: AlsoWithin<ImportedExport>,
): Promise<ImportedExport> {
  const connection = context.providers.liveConnection(connectionId)
  if (!connection) throw new ApiError('not_found', `No live connection has id ${connectionId}.`)
  const mapping = parseMapping(mappingText)
  const { lines, problems } = linesOfExport(new TextDecoder().decode(bytes), mapping, 'export', 'XOF')
  const timeZone = context.config.reconciliationTimezone
  const days = [...new Set(lines.map((line) => dayOf(line.atUs, timeZone)))].sort()
  const sha256 = sha256Of(bytes)
  const imported = { days, lines: lines.length, problems }
  // Every day it covers, or none: an import that fails part way leaves no day with it and others without.
  await context.store.transaction(async (tx) => {
    for (const day of days)
      await tx.reconciliation.keepFile(
        {
          connectionId,
          day,
          source: 'import',
          name: `import-${sha256.slice(0, 12)}.csv`,
          contentType: 'text/csv',
          sha256,
          bytes,
          mapping: JSON.stringify(mapping),
        },
        context.clock.nowUs(),
      )
    if (days.length > 0) await alsoWithin?.(tx, imported)
  })
  return imported
}

/** The lines of the day from every export imported for it, each line once (by its id). */
export async function importedLines(
  context: AppContext,
  connectionId: string,
  day: string,
): Promise<OperatorLine[]> {
  const window = dayWindow(day, context.config.reconciliationTimezone)
  const byId = new Map<string, OperatorLine>()
  for (const file of await context.store.reconciliation.files(connectionId, day, 'import')) {
    const mapping = file.mapping ? (JSON.parse(file.mapping) as ColumnMapping) : defaultMapping
    const { lines } = linesOfExport(new TextDecoder().decode(file.bytes), mapping, 'export', 'XOF')
    for (const line of lines)
      if (line.atUs >= window.startAtUs && line.atUs < window.endAtUs) byId.set(line.lineId, line)
  }
  return [...byId.values()]
}
