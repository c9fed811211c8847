import { type KitPage, kitWords } from './page.ts'

/**
 * Links between the pages of a list (GOV.UK's pagination): each given address is a link; with
 * `position`, where the reader is. Nothing when there is no other page.
 */
export function Pagination(props: {
  page: KitPage
  /** Names the navigation landmark: the list it pages. */
  label: string
  first?: string | undefined
  previous?: string | undefined
  next?: string | undefined
  position?: { page: number; pages: number }
}) {
  const words = kitWords(props.page)
  const { first, previous, next, position } = props
  if (!first && !previous && !next) return null
  return (
    <nav aria-label={props.label} class="pages">
      {position && <p>{words.pageOf(position.page, position.pages)}</p>}
      {first && <a href={first}>{words.first}</a>}
      {first && ' '}
      {previous && <a href={previous}>{words.previous}</a>}
      {previous && ' '}
      {next && <a href={next}>{words.next}</a>}
    </nav>
  )
}

/** The addresses of a numbered list's first and next pages, `?page=n` on `path`. */
export function numberedPages(path: string, current: number, total: number, perPage: number) {
  return {
    first: current > 1 ? path : undefined,
    next: total > current * perPage ? `${path}?page=${current + 1}` : undefined,
  }
}

/** A page number from a query string: a positive whole number (at most a million), else the first. */
export function pageNumberOf(text: unknown): number {
  const page = Number(text)
  return Number.isInteger(page) && page >= 1 && page <= 1_000_000 ? page : 1
}
