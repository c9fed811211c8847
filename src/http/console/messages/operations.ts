import type { Locale } from '../../dashboard/messages/catalogue.ts'

/** The words of the console's operations pages, in English; French below has the same shape. */
const en = {
  title: 'Operations',
  merchant: 'Merchant id',
  mode: 'Mode',
  modes: { live: 'Live', sandbox: 'Sandbox' },
  merchantOf: 'Merchant',
  found: (count: number) => `${count} operation(s) found.`,
  resent: 'The callback is queued again.',
}

export type OperationWords = typeof en

const fr: OperationWords = {
  title: 'Opérations',
  merchant: 'Identifiant du marchand',
  mode: 'Mode',
  modes: { live: 'Production', sandbox: 'Bac à sable' },
  merchantOf: 'Marchand',
  found: (count: number) => `${count} opération(s) trouvée(s).`,
  resent: 'Le rappel est de nouveau en file d’attente.',
}

const catalogues: Record<Locale, OperationWords> = { en, fr }

export function operationWordsOf(locale: Locale): OperationWords {
  return catalogues[locale]
}
