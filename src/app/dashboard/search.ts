import { parsePhoneNumberFromString } from 'libphonenumber-js'
import type { Mode } from '../../domain/kinds.ts'
import { countries } from '../../domain/money.ts'
import type { Operation } from '../../domain/operation.ts'
import { readPhoneNumber } from '../../domain/phone-numbers.ts'
import type {
  OperationCursor,
  OperationListFilter,
  OperationListPage,
} from '../../store/repositories/operation-search.ts'
import type { AppContext } from '../context.ts'
import { type LongExport, openLongExport } from '../mechanisms/long-exports.ts'

export type { OperationCursor, OperationListPage }

/** The operations page's question: a search box, filters, and where the page starts. */
export interface OperationQuery {
  q?: string
  kind?: string
  status?: string
  channel?: string
  country?: string
  fromUs?: number
  toUs?: number
  after?: OperationCursor
}

/** Operations a search box finds at most: a search answers in one page, with no next one. */
export const searchLimit = 100
export const pageSize = 50
/**
 * The CSV of a filter holds at most this many rows, read a page of `csvPageSize` at a time, each
 * page a turn of the process's long work: a few milliseconds of the event loop.
 */
export const csvRowLimit = 100_000
const csvPageSize = 250

/**
 * The distinct E.164 numbers `text` may be, read as Sika reads a customer's number for each
 * country it serves (national form, international with or without the `+`), keeping only the
 * valid ones. `0700000002` is valid in a few countries (CI, KE, UG): each is one candidate.
 * Text with letters, or too few digits to be a number, has none.
 */
export function phoneCandidates(text: string): string[] {
  if (!/^[+\d\s().-]+$/.test(text)) return []
  const digits = text.replace(/\D/g, '')
  if (digits.length < 6 || digits.length > 15) return []
  const found = new Set<string>()
  const keep = (e164: string | undefined) => {
    if (e164 && parsePhoneNumberFromString(e164)?.isValid()) found.add(e164)
  }
  for (const country of Object.keys(countries)) {
    const reading = readPhoneNumber(text, country)
    if ('e164' in reading) keep(reading.e164)
  }
  if (!text.trim().startsWith('+')) keep(parsePhoneNumberFromString(`+${digits}`)?.number)
  return [...found]
}

/**
 * A search: what the box finds, with the filters applied to it; or, with an empty box, a keyset
 * page of every operation the filters keep, newest first.
 *
 * Cost of a search, in index probes: each phone candidate (at most one per country served, in
 * practice one to three) is two probes (operations_by_phone and operations_by_to_phone, one
 * UNION); the text as a reference is seven for each of its spellings (as typed, lowercase,
 * uppercase: the merchantReference under its unique index once per kind, six kinds; the operator
 * reference) and one for the token, lowercase. Digits have one spelling: a national number valid
 * in three countries is thus 3 × 2 + 8 = 14 probes, an international one 2 + 8 = 10; a reference
 * with letters 3 × 7 + 1 = 22 at most. No search reads operations beyond what the probes find
 * (at most `searchLimit` rows each).
 */
export async function searchOperations(
  context: AppContext,
  merchantId: string,
  mode: Mode,
  query: OperationQuery,
): Promise<OperationListPage> {
  const text = query.q?.trim() ?? ''
  if (text === '')
    return context.store.operationSearch.list(merchantId, mode, { ...listFilter(query), limit: pageSize })
  const search = context.store.operationSearch
  const found = await Promise.all([
    search.findByReference(merchantId, mode, text, searchLimit),
    ...phoneCandidates(text).map((e164) => search.findByPhone(merchantId, mode, e164, searchLimit)),
  ])
  const byId = new Map<number, Operation>()
  for (const operation of found.flat()) byId.set(operation.id, operation)
  const items = [...byId.values()]
    .filter((operation) => keeps(operation, query))
    .sort((a, b) => b.initiatedAtUs - a.initiatedAtUs || b.id - a.id)
    .slice(0, searchLimit)
  return { items, next: undefined }
}

/**
 * The operations CSV of a query, streamed in turns with the other long work and holding one of
 * the merchant's export slots (`openLongExport`: 429 when they are all taken).
 */
export function openOperationsExport(
  context: AppContext,
  merchantId: string,
  mode: Mode,
  query: OperationQuery,
): LongExport<Operation> {
  return openLongExport(context, { merchantId, mode }, () =>
    operationsForCsv(context, merchantId, mode, query),
  )
}

/**
 * Every operation the query selects, page after page, up to `csvRowLimit` rows: a search's
 * findings, or the keyset pages of the filters.
 */
async function* operationsForCsv(
  context: AppContext,
  merchantId: string,
  mode: Mode,
  query: OperationQuery,
): AsyncGenerator<Operation[]> {
  if (query.q?.trim()) {
    yield (await searchOperations(context, merchantId, mode, query)).items
    return
  }
  let after = query.after
  let rows = 0
  while (rows < csvRowLimit) {
    const limit = Math.min(csvPageSize, csvRowLimit - rows)
    const page = await context.store.operationSearch.list(merchantId, mode, {
      ...listFilter({ ...query, after }),
      limit,
    })
    rows += page.items.length
    yield page.items
    if (!page.next) return
    after = page.next
  }
}

export function listFilter(query: OperationQuery): Omit<OperationListFilter, 'limit'> {
  const filter: Omit<OperationListFilter, 'limit'> = {}
  if (query.kind) filter.kinds = [query.kind]
  if (query.status) filter.statuses = [query.status]
  if (query.channel) filter.channel = query.channel
  if (query.country) filter.country = query.country
  if (query.fromUs !== undefined) filter.fromUs = query.fromUs
  if (query.toUs !== undefined) filter.toUs = query.toUs
  if (query.after) filter.after = query.after
  return filter
}

/** The filters, on an operation a search found (the console's search checks them the same way). */
export function keeps(operation: Operation, query: OperationQuery): boolean {
  if (query.kind && operation.kind !== query.kind) return false
  if (query.status && operation.status !== query.status) return false
  if (query.channel && !operation.sides.some((side) => side.channel === query.channel)) return false
  if (query.country && !operation.sides.some((side) => side.country === query.country)) return false
  if (query.fromUs !== undefined && operation.initiatedAtUs < query.fromUs) return false
  if (query.toUs !== undefined && operation.initiatedAtUs >= query.toUs) return false
  return true
}

/** `after=<initiatedAtUs>.<id>` as a cursor; undefined when it is not one. */
export function parseCursor(text: string | undefined): OperationCursor | undefined {
  const match = /^(\d{1,17})\.(\d{1,17})$/.exec(text ?? '')
  if (!match) return undefined
  return { initiatedAtUs: Number(match[1]), id: Number(match[2]) }
}

export function cursorText(cursor: OperationCursor): string {
  return `${cursor.initiatedAtUs}.${cursor.id}`
}
