import type { Mode } from '../../domain/kinds.ts'
import type { Operation } from '../../domain/operation.ts'
import { idDateSlackUs } from '../../store/repositories/platform-search.ts'
import type { AppContext } from '../context.ts'
import {
  keeps,
  listFilter,
  type OperationCursor,
  type OperationQuery,
  pageSize,
  phoneCandidates,
  searchLimit,
  searchOperations,
} from '../dashboard/search.ts'

/** The console's operations page: the dashboard's query, across merchants or within one, in one mode. */
export interface PlatformOperationQuery extends OperationQuery {
  /** One merchant's operations only: the dashboard's own list and search. */
  merchantId?: string
  /** Live unless asked: the platform's questions are mostly about real money. */
  mode?: Mode
  /** A page across merchants holds at most this many (`pageSize`, the dashboard's, by default). */
  limit?: number
}

export interface PlatformOperationPage {
  items: Operation[]
  /**
   * Where the next page starts; undefined when there is none. Across merchants only its `id`
   * counts: the page read the primary key down to it.
   */
  next: OperationCursor | undefined
}

/**
 * Rows of the primary key a page across merchants reads at most: a filter that keeps few
 * operations gives a short page with a cursor to read on, rather than a read that grows with the
 * history.
 */
export const scanLimit = 20_000

/**
 * One search across every merchant (or one): the search box takes a phone number in any written
 * form, a token, a merchantReference or an operatorReference, as the dashboard's; an empty box
 * lists newest first with the filters. Costs, at a million operations across a thousand merchants
 * (docs and the report of test/console/operation-search-at-scale.test.ts): a phone candidate or a
 * merchantReference is a seek per merchant in the dashboard's indexes; a token or an operator
 * reference one seek; a list page at most `scanLimit` rows of the primary key, plus about twenty
 * seeks to find where a `to` date starts.
 */
export async function searchAllOperations(
  context: AppContext,
  query: PlatformOperationQuery,
): Promise<PlatformOperationPage> {
  const mode = query.mode ?? 'live'
  if (query.merchantId !== undefined) return searchOperations(context, query.merchantId, mode, query)
  const text = query.q?.trim() ?? ''
  if (text !== '') return { items: await findAcross(context, mode, text, query), next: undefined }
  return listAcross(context, mode, query)
}

async function findAcross(context: AppContext, mode: Mode, text: string, query: OperationQuery) {
  const search = context.store.platformSearch
  const found = await Promise.all([
    search.findByReference(mode, text, searchLimit),
    ...phoneCandidates(text).map((e164) => search.findByPhone(mode, e164, searchLimit)),
  ])
  const byId = new Map<number, Operation>()
  for (const operation of found.flat()) byId.set(operation.id, operation)
  return [...byId.values()]
    .filter((operation) => keeps(operation, query))
    .sort((a, b) => b.initiatedAtUs - a.initiatedAtUs || b.id - a.id)
    .slice(0, searchLimit)
}

async function listAcross(
  context: AppContext,
  mode: Mode,
  query: PlatformOperationQuery,
): Promise<PlatformOperationPage> {
  const search = context.store.platformSearch
  let beforeId = query.after?.id
  if (beforeId === undefined && query.toUs !== undefined) {
    const last = await search.lastIdBefore(query.toUs + idDateSlackUs)
    if (last === undefined) return { items: [], next: undefined }
    beforeId = last + 1
  }
  const { after: _after, ...filter } = listFilter(query)
  const page = await search.scanNewest({
    beforeId,
    mode,
    filter,
    limit: Math.min(query.limit ?? pageSize, pageSize),
    scanLimit,
  })
  return {
    items: page.items,
    next: page.nextBeforeId === undefined ? undefined : { initiatedAtUs: 0, id: page.nextBeforeId },
  }
}
