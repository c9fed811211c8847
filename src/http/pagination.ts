import type { Static } from 'typebox'
import type { Pagination } from './schemas.ts'

/** How many page numbers `pages` holds at most, nearest the current one. */
const pagesWindow = 10

/**
 * meta.pagination as the spec shapes it, plus next/previous. Every URL is absolute on
 * PUBLIC_BASE_URL and keeps perPage and the filters, so following it never loses a filter.
 */
export function paginationMeta(
  baseUrl: string,
  path: string,
  query: Record<string, string | number | undefined>,
  page: number,
  perPage: number,
  total: number,
): Static<typeof Pagination> {
  const lastPage = Math.max(1, Math.ceil(total / perPage))
  const filters = Object.entries(query).filter(
    ([key, value]) => key !== 'page' && key !== 'perPage' && value !== undefined && value !== '',
  )
  const url = (n: number) => {
    const params = new URLSearchParams([
      ['page', String(n)],
      ['perPage', String(perPage)],
    ])
    for (const [key, value] of filters) params.append(key, String(value))
    return `${baseUrl}${path}?${params}`
  }
  const first = Math.max(1, Math.min(page - Math.floor(pagesWindow / 2), lastPage - pagesWindow + 1))
  const pages: Record<string, string> = {}
  for (let n = first; n <= Math.min(lastPage, first + pagesWindow - 1); n++) pages[String(n)] = url(n)
  return {
    total,
    perPage,
    currentPage: page,
    firstPage: 1,
    firstPageUrl: url(1),
    pages,
    lastPage,
    lastPageUrl: url(lastPage),
    nextPageUrl: page < lastPage ? url(page + 1) : null,
    previousPageUrl: page > 1 ? url(Math.min(page - 1, lastPage)) : null,
  }
}
