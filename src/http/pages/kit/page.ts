/**
 * What the kit's components need of a page: its language, the reader's time zone, and the CSRF
 * token of the session for the forms that change anything. The dashboard's page context is one;
 * the platform console's is another.
 */
export type KitLocale = 'en' | 'fr'

export interface KitPage {
  locale: KitLocale
  member?: { timeZone: string } | undefined
  csrf?: string | undefined
}

/** The kit's own words, so that a page of any area gets them in its language. */
const words = {
  en: {
    none: 'Nothing yet.',
    first: 'First page',
    previous: 'Previous page',
    next: 'Next page',
    pageOf: (page: number, pages: number) => `Page ${page} of ${pages}`,
  },
  fr: {
    none: 'Rien pour le moment.',
    first: 'Première page',
    previous: 'Page précédente',
    next: 'Page suivante',
    pageOf: (page: number, pages: number) => `Page ${page} sur ${pages}`,
  },
} as const

export function kitWords(page: KitPage) {
  return words[page.locale]
}

export function timeZoneOf(page: KitPage): string {
  return page.member?.timeZone ?? 'UTC'
}
