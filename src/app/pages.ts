import type { Mode } from '../domain/kinds.ts'
import type { Executor } from '../store/store.ts'

export interface PageRequest {
  page: number
  perPage: number
}

export interface Page<T> {
  items: T[]
  total: number
}

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
  mode: Mode,
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
