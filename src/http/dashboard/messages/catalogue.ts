import { en, type Messages } from './en.ts'
import { fr } from './fr.ts'

export type Locale = 'en' | 'fr'
export type { Messages }

const catalogues: Record<Locale, Messages> = { en, fr }

export function messagesOf(locale: Locale): Messages {
  return catalogues[locale]
}

/** The language asked for: the `lang` cookie, then the browser's Accept-Language, then English. */
export function localeOf(cookie: string | undefined, acceptLanguage: string | undefined): Locale {
  if (cookie === 'fr' || cookie === 'en') return cookie
  const first = acceptLanguage
    ?.split(',')
    .map((part) => part.split(';')[0]?.trim().toLowerCase() ?? '')
    .find((tag) => tag.startsWith('fr') || tag.startsWith('en'))
  return first?.startsWith('fr') ? 'fr' : 'en'
}
