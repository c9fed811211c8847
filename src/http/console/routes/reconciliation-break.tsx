import type { BreakView } from '../../../app/console/reconciliation-console.ts'
import type { BreakHistoryEntry } from '../../../store/repositories/reconciliation.ts'
import {
  ConfirmForm,
  formatInstant,
  formatMoney,
  Notification,
  Section,
  SummaryList,
  Table,
} from '../../pages/kit/index.ts'
import { type ConsolePage, consoleAllows, consolePage } from '../layout.tsx'
import { type ReconciliationWords, reconciliationWords, wordOf } from '../messages/reconciliation.ts'
import { breakPath, breaksPath } from './reconciliation-runs.tsx'

/** A break's page: the record, both sides, its history and evidence, and finance's decision or approval. */
export function breakPage(
  page: ConsolePage,
  view: BreakView,
  outcome: { notice?: string; error?: string } = {},
): string {
  const words = reconciliationWords(page.locale)
  const { found } = view
  const zone = page.member?.timeZone ?? 'UTC'
  return consolePage(
    page,
    words.breakTitle(wordOf(words.kinds, found.kind)),
    <>
      <Notification notice={outcome.notice} error={outcome.error} />
      <p>
        <a href={breaksPath}>{words.queue}</a>
      </p>
      <Section id="record" title={words.record}>
        <SummaryList
          rows={[
            [words.state, words.states[found.state] ?? found.state],
            [words.connection, found.connectionId],
            [words.day, found.day],
            [words.amount, formatMoney(found.amountMinor, found.currency, page.locale)],
            [words.detail, found.detail],
            [words.foundAt, formatInstant(found.foundAtUs, page.locale, zone)],
            [words.lastSeen, formatInstant(found.lastSeenAtUs, page.locale, zone)],
            found.closedAtUs !== null && [words.closedAt, formatInstant(found.closedAtUs, page.locale, zone)],
            found.reason && [words.reason, found.reason],
          ]}
        />
      </Section>
      <SikaSide view={view} page={page} words={words} />
      <Section id="operator-side" title={words.operatorSide}>
        <OperatorLines lines={found.lines} words={words} />
      </Section>
      <DecisionSection page={page} view={view} words={words} />
      <Section id="history" title={words.history}>
        <Table<BreakHistoryEntry>
          page={page}
          rows={view.history}
          rowKey={(entry) => `${entry.atUs} ${entry.what} ${entry.actor}`}
          columns={[
            { header: words.when, cell: (entry) => formatInstant(entry.atUs, page.locale, zone) },
            { header: words.what, cell: (entry) => <code>{entry.what}</code> },
            { header: words.who, cell: (entry) => entry.actor },
            { header: words.detail, cell: (entry) => entry.detail ?? '' },
          ]}
        />
      </Section>
      <Section id="evidence" title={words.evidence}>
        {found.evidence ? <RecordRows value={parsed(found.evidence)} /> : <p>{words.noEvidence}</p>}
      </Section>
    </>,
  )
}

/** A JSON record as labelled rows, one per field; a value that is not text shown as compact JSON. */
function RecordRows({ value }: { value: unknown }) {
  if (value === null || typeof value !== 'object') return <p>{String(value)}</p>
  return (
    <SummaryList
      rows={Object.entries(value as Record<string, unknown>).map(([key, field]) => [
        key,
        <code key={key}>{typeof field === 'string' ? field : JSON.stringify(field)}</code>,
      ])}
    />
  )
}

function parsed(json: string): unknown {
  try {
    return JSON.parse(json) as unknown
  } catch {
    return json
  }
}

function SikaSide({ view, page, words }: { view: BreakView; page: ConsolePage; words: ReconciliationWords }) {
  const { operation, found } = view
  const side = operation?.sides.find((each) => each.role === found.role) ?? operation?.sides[0]
  return (
    <Section id="sika-side" title={words.sikaSide}>
      {!operation || !side ? (
        <p>{words.noSikaSide}</p>
      ) : (
        <SummaryList
          rows={[
            [
              words.operation,
              <a key="link" href={`/console/operations/${encodeURIComponent(operation.token)}`}>
                {words.operationLink(operation.token)}
              </a>,
            ],
            [words.merchant, operation.merchantId],
            [words.operationStatus, operation.status],
            [words.sideRole, side.role],
            [words.sideStatus, side.status],
            [words.operatorReference, side.operatorReference ?? ''],
            [words.transactionAmount, formatMoney(side.transactionAmountMinor, side.currency, page.locale)],
          ]}
        />
      )}
    </Section>
  )
}

function OperatorLines({ lines, words }: { lines: string; words: ReconciliationWords }) {
  const value = parsed(lines)
  const received = Array.isArray(value) ? value : [value]
  if (received.length === 0) return <p>{words.noOperatorLine}</p>
  return (
    <>
      {received.map((line) => (
        <RecordRows key={JSON.stringify(line)} value={line} />
      ))}
    </>
  )
}

function DecisionSection({
  page,
  view,
  words,
}: {
  page: ConsolePage
  view: BreakView
  words: ReconciliationWords
}) {
  const { found, pending } = view
  if (found.state !== 'open' || !consoleAllows(page, 'reconciliation')) return null
  if (pending) {
    const mine = pending.requestedBy === page.member?.email
    return (
      <Section id="approval" title={words.pendingTitle}>
        <p>
          {words.pendingText(
            words.states[pending.decision] ?? pending.decision,
            pending.requestedBy,
            pending.reason,
          )}
        </p>
        {mine ? (
          <p class="notice" id="own-request">
            {words.ownRequest}
          </p>
        ) : (
          <ConfirmForm
            page={page}
            action={`${breakPath(found.id)}/approve`}
            id="approve-intro"
            intro={words.approveIntro}
            button={words.approve}
          >
            <label>
              {words.code}
              <input
                name="code"
                inputMode="numeric"
                autocomplete="one-time-code"
                pattern="[0-9]{6}"
                required
                aria-describedby="approve-intro"
              />
            </label>
          </ConfirmForm>
        )}
      </Section>
    )
  }
  return <DecisionForm page={page} view={view} words={words} />
}

function DecisionForm({
  page,
  view,
  words,
}: {
  page: ConsolePage
  view: BreakView
  words: ReconciliationWords
}) {
  const { found } = view
  const intro = view.needsSecondApprover
    ? `${words.decideIntro} ${words.reviewIntro(formatMoney(view.reviewAmountMinor, found.currency, page.locale))}`
    : words.decideIntro
  return (
    <Section id="decide" title={words.decide}>
      <ConfirmForm
        page={page}
        action={`${breakPath(found.id)}/decide`}
        id="decide-intro"
        intro={intro}
        button={words.submitDecision}
      >
        <fieldset>
          <legend>{words.decision}</legend>
          <label>
            <input type="radio" name="decision" value="resolved" checked required /> {words.resolve}
          </label>
          <label>
            <input type="radio" name="decision" value="ignored" required /> {words.ignore}
          </label>
        </fieldset>
        <label for="reason">{words.reason}</label>
        <textarea id="reason" name="reason" rows={3} maxLength={2000} required />
      </ConfirmForm>
    </Section>
  )
}
