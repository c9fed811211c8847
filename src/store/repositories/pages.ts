import type { Page, PageRequest } from '../../domain/pages.ts'
import type { Executor } from './executor.ts'
import { statementTemplate } from './statement-template.ts'

export function isUnfiltered(filters: object): boolean {
  return Object.values(filters).every((value) => value === undefined)
}

/**
 * Unfiltered lists are numbered 1, 2, 3... by a dense per-merchant counter, so page N, newest
 * first, is the range `position <= total - (N - 1) * perPage`: a seek that costs the same on
 * page 1 and page 10,000, with ten rows or a million, and a total read from the counter.
 */
export async function seekPage<T>(
  total: number,
  page: PageRequest,
  readAtOrBelow: (top: number, limit: number) => Promise<T[]>,
): Promise<Page<T>> {
  const top = total - (page.page - 1) * page.perPage
  return { items: top > 0 ? await readAtOrBelow(top, page.perPage) : [], total }
}

export async function counterValue(
  db: Executor,
  merchantId: string,
  mode: string,
  name: string,
): Promise<number> {
  const row = await db
    .selectFrom('counters')
    .select('value')
    .where('merchant_id', '=', merchantId)
    .where('mode', '=', mode)
    .where('name', '=', name)
    .executeTakeFirst()
  return row?.value ?? 0
}

/**
 * Advances several of a merchant's counters in one statement, each by its count (a count of 0 is
 * left alone), and returns the first value of each range taken. Rows are taken in name order, so
 * two transactions cannot deadlock on them.
 */
export async function reserveCounterValues<Name extends string>(
  db: Executor,
  merchantId: string,
  mode: string,
  counts: Record<Name, number>,
  /** lockUnchanged: a count of 0 still locks its counter, and reads the next value it would give. */
  { lockUnchanged = false }: { lockUnchanged?: boolean } = {},
): Promise<Record<Name, number>> {
  const first = Object.fromEntries(Object.keys(counts).map((name) => [name, 0])) as Record<Name, number>
  const rows = counterRows(merchantId, mode, counts, lockUnchanged)
  if (rows.length === 0) return first
  for (const row of (await advanceCounters(db, { rows })).rows) {
    const count = counts[row.name as Name]
    first[row.name as Name] = row.value - count + 1
  }
  return first
}

/**
 * Advances counters whose rows this transaction holds locked already, so it knows their values
 * without asking: nobody reads the answer, and on PostgreSQL the statement rides with the next
 * statement declared a carrier (the operation's insert, write-only.ts). A negative count gives
 * back numbers this transaction took and did not use: no one else can have taken one since.
 */
export async function advanceLockedCounters(
  db: Executor,
  merchantId: string,
  mode: string,
  counts: Record<string, number>,
): Promise<void> {
  const rows = counterRows(merchantId, mode, counts)
  if (rows.length > 0) await advanceCountersUnread(db, { rows })
}

// A type, not an interface: a statement template's arguments are a record.
type CounterAdvance = { rows: { merchant_id: string; mode: string; name: string; value: number }[] }

/** The counters to advance, in name order (a count of 0 is left alone unless it is to be locked). */
function counterRows(
  merchantId: string,
  mode: string,
  counts: Record<string, number>,
  lockUnchanged = false,
): CounterAdvance['rows'] {
  return Object.entries(counts)
    .filter(([, count]) => count !== 0 || lockUnchanged)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, by]) => ({ merchant_id: merchantId, mode, name, value: by }))
}

const advance = (db: Executor, { rows }: CounterAdvance) =>
  db
    .insertInto('counters')
    .values(rows)
    .onConflict((conflict) =>
      conflict
        .columns(['merchant_id', 'mode', 'name'])
        .doUpdateSet((eb) => ({ value: eb('counters.value', '+', eb.ref('excluded.value')) })),
    )

const advanceCounters = statementTemplate(
  (db, rows: CounterAdvance) => advance(db, rows).returning(['name', 'value']),
  { carries: { tables: ['counters'] } },
)
const advanceCountersUnread = statementTemplate(advance, { writeOnly: 'counters' })
