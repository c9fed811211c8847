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
  recheckTitle: 'Its operator',
  recheckIntro:
    'Sika asks the operator for this operation’s status and writes its answer as any status check’s: at most one check per side a second, whoever asks.',
  recheck: 'Ask the operator for its status again',
  rechecked: (before: string, after: string) =>
    before === after
      ? `The operator was asked again: the operation is still ${after.toLowerCase()}.`
      : `The operator was asked again: the operation was ${before.toLowerCase()} and is now ${after.toLowerCase()}.`,
  nothingToAsk: {
    unknown: 'No operation has this token.',
    final: 'This operation is final: there is nothing to ask its operator, and nothing was asked.',
    sandbox:
      'A sandbox operation has no operator to ask: the sandbox decides its outcome itself. Nothing was asked.',
    not_with_operator:
      'No side of this operation is with its operator yet (it waits for the customer, or for its submission): nothing was asked.',
  },
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
  recheckTitle: 'Son opérateur',
  recheckIntro:
    'Sika demande à l’opérateur le statut de cette opération et enregistre sa réponse comme celle de toute vérification : au plus une vérification par côté et par seconde, quel que soit le demandeur.',
  recheck: 'Redemander son statut à l’opérateur',
  rechecked: (before: string, after: string) =>
    before === after
      ? `L’opérateur a été interrogé de nouveau : l’opération est toujours au statut « ${after} ».`
      : `L’opérateur a été interrogé de nouveau : l’opération est passée de « ${before} » à « ${after} ».`,
  nothingToAsk: {
    unknown: 'Aucune opération n’a ce jeton.',
    final:
      'Cette opération est terminée : il n’y a rien à demander à son opérateur, et rien n’a été demandé.',
    sandbox:
      'Une opération du bac à sable n’a pas d’opérateur à interroger : le bac à sable décide lui-même de son issue. Rien n’a été demandé.',
    not_with_operator:
      'Aucun côté de cette opération n’est encore chez son opérateur (elle attend le client, ou sa soumission) : rien n’a été demandé.',
  },
}

const catalogues: Record<Locale, OperationWords> = { en, fr }

export function operationWordsOf(locale: Locale): OperationWords {
  return catalogues[locale]
}
