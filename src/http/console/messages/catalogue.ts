import { type Locale, type Messages, messagesOf } from '../../dashboard/messages/catalogue.ts'
import { type ConsoleMessages, consoleEn } from './en.ts'
import { consoleFr } from './fr.ts'

export type { ConsoleMessages }

const catalogues: Record<Locale, ConsoleMessages> = { en: consoleEn, fr: consoleFr }

export function consoleMessagesOf(locale: Locale): ConsoleMessages {
  return catalogues[locale]
}

/** The dashboard's shared words (sign-in, refusals, errors) under the console's name. */
const shared: Record<Locale, Messages> = {
  en: { ...messagesOf('en'), common: { ...messagesOf('en').common, product: consoleEn.product } },
  fr: { ...messagesOf('fr'), common: { ...messagesOf('fr').common, product: consoleFr.product } },
}

export function consoleSharedMessagesOf(locale: Locale): Messages {
  return shared[locale]
}
