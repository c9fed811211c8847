import { SikaRequestError, type SikaResult } from './results.ts'

/** meta.pagination, as every list answers it. */
export interface Pagination {
  total: number
  perPage: number
  currentPage: number
  lastPage: number
  nextPageUrl: string | null
}

/** One page of a list: its items and the pagination that came with them. */
export interface Page<Item, Paging = Pagination> {
  readonly items: Item[]
  readonly pagination: Paging
}

/**
 * Every page from `firstPage` on, following meta.pagination. Only the page number is taken from
 * nextPageUrl: the request goes to the client's own baseUrl with the caller's filters, because
 * the URL is built on the server's PUBLIC_BASE_URL (which may name another host than the one
 * this client reaches), and the keys must never be sent to a host an answer chose.
 */
export async function* followPages<Item, Paging extends Pagination, Operation>(
  fetchPage: (page: number) => Promise<SikaResult<Page<Item, Paging>, Operation>>,
  firstPage = 1,
): AsyncGenerator<Page<Item, Paging>, void, undefined> {
  let page = firstPage
  for (;;) {
    const result = await fetchPage(page)
    if (!result.ok) throw new SikaRequestError(result.error)
    yield result.data
    const next = nextPage(result.data.pagination)
    if (next === undefined) return
    if (next <= page) throw new Error(`pagination went from page ${page} back to page ${next}`)
    page = next
  }
}

/** Every item of every page, in the list's order (newest first). */
export async function* followItems<Item, Paging extends Pagination, Operation>(
  fetchPage: (page: number) => Promise<SikaResult<Page<Item, Paging>, Operation>>,
  firstPage = 1,
): AsyncGenerator<Item, void, undefined> {
  for await (const page of followPages(fetchPage, firstPage)) yield* page.items
}

function nextPage(pagination: Pagination): number | undefined {
  if (pagination.nextPageUrl !== null) {
    const page = Number(new URL(pagination.nextPageUrl).searchParams.get('page'))
    if (Number.isSafeInteger(page) && page > 0) return page
  }
  // Without a usable next URL, the page numbers still say whether there is more.
  return pagination.currentPage < pagination.lastPage ? pagination.currentPage + 1 : undefined
}
