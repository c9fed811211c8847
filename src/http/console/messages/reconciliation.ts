import type { ReconciliationRefusal } from '../../../app/console/reconciliation-console.ts'
import type { ImportRefusal } from '../../../app/console/reconciliation-import.ts'
import type { DashboardRefusal } from '../../../app/dashboard/refusals.ts'
import type { BreakKind } from '../../../domain/reconciliation.ts'
import type { BreakState } from '../../../store/repositories/reconciliation.ts'
import type { Locale } from '../../dashboard/messages/catalogue.ts'

/**
 * The refusals the reconciliation pages word themselves: each of the use cases' own codes, so a
 * new one without its words in both languages does not compile. The dashboard's shared codes keep
 * the shared words; an unreadable import is worded with its columns.
 */
export type ReconciliationRefusalCode = Exclude<
  ReconciliationRefusal['refused'] | ImportRefusal['refused'],
  DashboardRefusal['refused'] | 'import_unreadable'
>

/** The reconciliation pages' words in English; `fr` below has the same shape. */
const en = {
  title: 'Reconciliation',
  runs: 'Runs',
  runsCaption: 'Runs per connection and day, newest day first',
  noRuns: 'No run yet.',
  connection: 'Connection',
  day: 'Day',
  status: 'Status',
  lines: 'Operator lines',
  matched: 'Matched',
  matchedAmount: 'Matched value',
  breaks: 'Breaks',
  noBreak: 'None',
  download: 'CSV of breaks',
  downloadLabel: (connection: string, day: string) => `CSV of the breaks of ${connection} on ${day}`,
  runStatuses: { due: 'Due', running: 'Running', completed: 'Completed', failed: 'Failed' } as Record<
    string,
    string
  >,
  runByHand: 'Run a day by hand',
  runIntro:
    'Runs one connection’s day now, as `sika reconcile` does; running a day again gives the same result.',
  runSubmit: 'Run',
  ran: (connection: string, day: string, status: string, breaks: number) =>
    `The run of ${connection} for ${day} is ${status}: ${breaks} break(s).`,
  queue: 'Break queue',
  queueLink: 'Open the break queue',
  filters: 'Filters',
  anyConnection: 'Any connection',
  kind: 'Kind',
  anyKind: 'Any kind',
  state: 'State',
  anyState: 'Any state',
  age: 'Found',
  anyAge: 'Any time',
  ages: { '1': 'More than a day ago', '7': 'More than 7 days ago', '30': 'More than 30 days ago' } as Record<
    string,
    string
  >,
  filter: 'Show',
  queueCaption: (total: number) => `${total} break(s) match`,
  pages: 'Pages of the break queue',
  noneMatch: 'No break matches these filters.',
  amount: 'Amount',
  reference: 'Reference',
  foundAt: 'Found',
  open: 'Open',
  kinds: {
    missing_in_sika: 'Missing in Sika',
    missing_at_operator: 'Missing at the operator',
    status_mismatch: 'Status mismatch',
    amount_mismatch: 'Amount mismatch',
    duplicate: 'Duplicate',
    balance_drift: 'Balance drift',
  } satisfies Record<BreakKind, string> as Record<BreakKind, string>,
  states: {
    open: 'Open',
    auto_resolved: 'Repaired automatically',
    resolved: 'Resolved',
    ignored: 'Ignored',
  } satisfies Record<BreakState, string> as Record<BreakState, string>,
  breakTitle: (kind: string) => `Break: ${kind}`,
  record: 'The break',
  detail: 'What the run found',
  lastSeen: 'Last seen',
  closedAt: 'Closed',
  reason: 'Reason',
  sikaSide: 'Sika’s side',
  noSikaSide: 'Sika has no operation for this line.',
  operation: 'Operation',
  operationLink: (token: string) => `Operation ${token}`,
  operationStatus: 'Operation status',
  sideRole: 'Side',
  sideStatus: 'Side status',
  operatorReference: 'Operator reference',
  transactionAmount: 'Transaction amount',
  merchant: 'Merchant',
  operatorSide: 'The operator’s line, as received',
  noOperatorLine: 'The operator lists no line for this side.',
  history: 'History',
  when: 'When',
  what: 'What',
  who: 'Who',
  evidence: 'Evidence',
  noEvidence: 'No evidence recorded.',
  decide: 'Resolve or ignore',
  decideIntro: 'Give the reason; it is kept in the break’s history and the audit log.',
  reviewIntro: (amount: string) =>
    `This break is above the review amount (${amount}): a second finance member must approve the decision with a fresh authenticator code.`,
  decision: 'Decision',
  resolve: 'Resolve',
  ignore: 'Ignore',
  submitDecision: 'Record the decision',
  pendingTitle: 'Waiting for a second finance member',
  pendingText: (decision: string, by: string, reason: string) =>
    `${by} asked to mark it ${decision}: “${reason}”.`,
  ownRequest: 'You asked for this decision: another finance member approves it.',
  approveIntro: 'Approve the decision with a fresh code from your authenticator.',
  code: 'Authenticator code',
  approve: 'Approve',
  decided: (state: string) => `The break is ${state}.`,
  asked: 'The decision is recorded; it waits for a second finance member.',
  refusals: {
    reason_missing: 'Give a reason for the decision.',
    break_not_open: 'This break is no longer open.',
    no_approval: 'No decision waits for approval on this break.',
    approval_waiting: 'A decision already waits for a second finance member.',
    run_input: 'Choose a connection and a day written YYYY-MM-DD.',
    same_member: 'You asked for this decision: another finance member approves it.',
    import_connection:
      'Choose a connection whose operator publishes no statement API (MTN MoMo, Orange Money).',
    import_empty: 'Choose the export file: none was sent, or it is empty. Nothing was imported.',
    import_columns:
      'The column mapping is field=column pairs separated by commas, for reference, amount, date, status, direction, currency and id. Nothing was imported.',
  } satisfies Record<ReconciliationRefusalCode, string> as Record<ReconciliationRefusalCode, string>,
  importTitle: 'Import a portal export',
  importIntro:
    'MTN MoMo and Orange Money publish no statement API: upload the day’s CSV exported from the operator’s portal, as `sika reconcile import` does. Each run of a day it covers then matches its lines.',
  importFile: 'Export file (CSV)',
  importColumns: 'Column mapping (optional)',
  importColumnsHint: (defaults: string) =>
    `field=column pairs separated by commas, for the columns your export names otherwise. Without it: ${defaults}.`,
  importSubmit: 'Import',
  noImportConnection:
    'No connection takes a portal export: each operator connected gives its statement through its API.',
  imported: (lines: number, connection: string, days: string) =>
    `${lines} line(s) imported for ${connection} on ${days}: run each day below to match them.`,
  importSkipped: (rows: number) => `${rows} row(s) could not be read and were skipped.`,
  importUnreadable: (columns: string) =>
    `No row of this file could be read: each needs a reference, an amount and a date (columns ${columns}). Nothing was imported; check the file, or name its columns in the mapping.`,
  notFound: 'No break has this id.',
  openBreaks: 'Open breaks by connection and kind',
  noOpenBreaks: 'No open break.',
  lastCompletedRuns: 'Each connection’s last completed run',
  completedAt: 'Completed',
}

export type ReconciliationWords = typeof en

/** The word for a stored code (a break's kind or state, a refusal): the code itself when none has one. */
export function wordOf<K extends string>(words: Readonly<Record<K, string>>, code: string): string {
  return Object.hasOwn(words, code) ? words[code as K] : code
}

const fr: ReconciliationWords = {
  title: 'Rapprochement',
  runs: 'Exécutions',
  runsCaption: 'Exécutions par connexion et par jour, le jour le plus récent d’abord',
  noRuns: 'Aucune exécution pour le moment.',
  connection: 'Connexion',
  day: 'Jour',
  status: 'Statut',
  lines: 'Lignes de l’opérateur',
  matched: 'Rapprochées',
  matchedAmount: 'Valeur rapprochée',
  breaks: 'Écarts',
  noBreak: 'Aucun',
  download: 'CSV des écarts',
  downloadLabel: (connection: string, day: string) => `CSV des écarts de ${connection} du ${day}`,
  runStatuses: { due: 'Prévue', running: 'En cours', completed: 'Terminée', failed: 'Échouée' },
  runByHand: 'Lancer un jour à la main',
  runIntro:
    'Rapproche maintenant le jour d’une connexion, comme `sika reconcile` ; relancer un jour donne le même résultat.',
  runSubmit: 'Lancer',
  ran: (connection: string, day: string, status: string, breaks: number) =>
    `L’exécution de ${connection} pour le ${day} est ${status} : ${breaks} écart(s).`,
  queue: 'File des écarts',
  queueLink: 'Ouvrir la file des écarts',
  filters: 'Filtres',
  anyConnection: 'Toute connexion',
  kind: 'Type',
  anyKind: 'Tout type',
  state: 'État',
  anyState: 'Tout état',
  age: 'Trouvé',
  anyAge: 'À tout moment',
  ages: { '1': 'Il y a plus d’un jour', '7': 'Il y a plus de 7 jours', '30': 'Il y a plus de 30 jours' },
  filter: 'Afficher',
  queueCaption: (total: number) => `${total} écart(s) correspondent`,
  pages: 'Pages de la file des écarts',
  noneMatch: 'Aucun écart ne correspond à ces filtres.',
  amount: 'Montant',
  reference: 'Référence',
  foundAt: 'Trouvé',
  open: 'Ouvrir',
  kinds: {
    missing_in_sika: 'Absent de Sika',
    missing_at_operator: 'Absent chez l’opérateur',
    status_mismatch: 'Statuts différents',
    amount_mismatch: 'Montants différents',
    duplicate: 'Doublon',
    balance_drift: 'Écart de solde',
  },
  states: {
    open: 'Ouvert',
    auto_resolved: 'Réparé automatiquement',
    resolved: 'Résolu',
    ignored: 'Ignoré',
  },
  breakTitle: (kind: string) => `Écart : ${kind}`,
  record: 'L’écart',
  detail: 'Ce que l’exécution a trouvé',
  lastSeen: 'Vu pour la dernière fois',
  closedAt: 'Clos',
  reason: 'Motif',
  sikaSide: 'Le côté de Sika',
  noSikaSide: 'Sika n’a aucune opération pour cette ligne.',
  operation: 'Opération',
  operationLink: (token: string) => `Opération ${token}`,
  operationStatus: 'Statut de l’opération',
  sideRole: 'Côté',
  sideStatus: 'Statut du côté',
  operatorReference: 'Référence de l’opérateur',
  transactionAmount: 'Montant de la transaction',
  merchant: 'Marchand',
  operatorSide: 'La ligne de l’opérateur, telle que reçue',
  noOperatorLine: 'L’opérateur ne liste aucune ligne pour ce côté.',
  history: 'Historique',
  when: 'Quand',
  what: 'Quoi',
  who: 'Qui',
  evidence: 'Preuves',
  noEvidence: 'Aucune preuve enregistrée.',
  decide: 'Résoudre ou ignorer',
  decideIntro: 'Donnez le motif ; il est gardé dans l’historique de l’écart et le journal d’audit.',
  reviewIntro: (amount: string) =>
    `Cet écart dépasse le montant de revue (${amount}) : un second membre des finances doit approuver la décision avec un nouveau code de son authentificateur.`,
  decision: 'Décision',
  resolve: 'Résoudre',
  ignore: 'Ignorer',
  submitDecision: 'Enregistrer la décision',
  pendingTitle: 'En attente d’un second membre des finances',
  pendingText: (decision: string, by: string, reason: string) =>
    `${by} a demandé de le marquer ${decision} : « ${reason} ».`,
  ownRequest: 'Vous avez demandé cette décision : un autre membre des finances l’approuve.',
  approveIntro: 'Approuvez la décision avec un nouveau code de votre authentificateur.',
  code: 'Code de l’authentificateur',
  approve: 'Approuver',
  decided: (state: string) => `L’écart est ${state}.`,
  asked: 'La décision est enregistrée ; elle attend un second membre des finances.',
  refusals: {
    reason_missing: 'Donnez un motif pour la décision.',
    break_not_open: 'Cet écart n’est plus ouvert.',
    no_approval: 'Aucune décision n’attend d’approbation pour cet écart.',
    approval_waiting: 'Une décision attend déjà un second membre des finances.',
    run_input: 'Choisissez une connexion et un jour écrit AAAA-MM-JJ.',
    same_member: 'Vous avez demandé cette décision : un autre membre des finances l’approuve.',
    import_connection:
      'Choisissez une connexion dont l’opérateur ne publie aucune API de relevé (MTN MoMo, Orange Money).',
    import_empty:
      'Choisissez le fichier d’export : aucun n’a été envoyé, ou il est vide. Rien n’a été importé.',
    import_columns:
      'La correspondance des colonnes s’écrit champ=colonne, séparés par des virgules, pour reference, amount, date, status, direction, currency et id. Rien n’a été importé.',
  },
  importTitle: 'Importer un export du portail',
  importIntro:
    'MTN MoMo et Orange Money ne publient aucune API de relevé : envoyez le CSV du jour exporté du portail de l’opérateur, comme le fait `sika reconcile import`. Chaque exécution d’un jour qu’il couvre rapproche alors ses lignes.',
  importFile: 'Fichier d’export (CSV)',
  importColumns: 'Correspondance des colonnes (facultative)',
  importColumnsHint: (defaults: string) =>
    `Des paires champ=colonne séparées par des virgules, pour les colonnes que votre export nomme autrement. Sans elle : ${defaults}.`,
  importSubmit: 'Importer',
  noImportConnection:
    'Aucune connexion ne prend d’export de portail : chaque opérateur connecté donne son relevé par son API.',
  imported: (lines: number, connection: string, days: string) =>
    `${lines} ligne(s) importée(s) pour ${connection} le ${days} : lancez chaque jour ci-dessous pour les rapprocher.`,
  importSkipped: (rows: number) => `${rows} ligne(s) illisible(s) ont été ignorée(s).`,
  importUnreadable: (columns: string) =>
    `Aucune ligne de ce fichier n’a pu être lue : chacune a besoin d’une référence, d’un montant et d’une date (colonnes ${columns}). Rien n’a été importé ; vérifiez le fichier, ou nommez ses colonnes dans la correspondance.`,
  notFound: 'Aucun écart n’a cet identifiant.',
  openBreaks: 'Écarts ouverts par connexion et par type',
  noOpenBreaks: 'Aucun écart ouvert.',
  lastCompletedRuns: 'La dernière exécution terminée de chaque connexion',
  completedAt: 'Terminée',
}

const catalogues: Record<Locale, ReconciliationWords> = { en, fr }

export function reconciliationWords(locale: Locale): ReconciliationWords {
  return catalogues[locale]
}
