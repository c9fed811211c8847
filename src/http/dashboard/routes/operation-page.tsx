import {
  newRefundReference,
  type OperationView,
  type TimelineEntry,
} from '../../../app/dashboard/operation-view.ts'
import { inEffectOrder } from '../../../domain/movement-meanings.ts'
import type { Side } from '../../../domain/operation.ts'
import { cancelableKinds } from '../../../domain/payout-batches.ts'
import type { LedgerEntry } from '../../../store/repositories/ledger.ts'
import {
  type Column,
  ConfirmForm,
  CsrfInput,
  Notification,
  Section,
  SummaryList,
  showInstant,
  showMoney,
  Table,
} from '../../pages/kit/index.ts'
import { allows, memberPage, type PageContext, StatusBadge } from '../layout.tsx'
import { MovementText } from '../movement-text.tsx'
import { OperationsTable } from '../operations-table.tsx'
import { CallbacksSection } from './operation-callbacks.tsx'

/** What the page says above the record: a notice after an action, or why it was refused. */
export interface PageNote {
  notice?: string
  error?: string
}

/**
 * An operation's page: its record, its sides, metadata, timeline, ledger movements, callbacks and
 * refunds, then what the member's role may do with it.
 */
export function operationPage(page: PageContext, view: OperationView, note: PageNote): string {
  const { t } = page
  const { operation } = view
  return memberPage(
    page,
    t.operations.recordTitle(t.kinds[operation.kind], operation.token),
    <>
      <Notification {...note} />
      <OperationSections
        page={page}
        view={view}
        resendAction={
          allows(page, 'resend')
            ? (eventId) =>
                `/dashboard/${operation.mode}/operations/${operation.token}/events/${eventId}/resend`
            : undefined
        }
      />
      <RefundForm page={page} view={view} />
      <CancelStep page={page} view={view} />
    </>,
  )
}

/**
 * What every reader of an operation sees, read-only: its record, sides, metadata, timeline, ledger
 * movements, callbacks (with `resendAction`'s form where the reader may resend) and refunds; the
 * dashboard's page and the console's are made of it, each linking to its own operation pages.
 */
export function OperationSections({
  page,
  view,
  hrefOf = (operation) => `/dashboard/${operation.mode}/operations/${operation.token}`,
  resendAction,
}: {
  page: PageContext<string>
  view: OperationView
  hrefOf?: (operation: { mode: string; token: string }) => string
  resendAction?: ((eventId: string) => string) | undefined
}) {
  const { t } = page
  const { operation } = view
  return (
    <>
      <Section id="record" title={t.operations.record}>
        <RecordList page={page} view={view} hrefOf={hrefOf} />
      </Section>
      <Section id="sides" title={t.operations.sides}>
        <SidesTable page={page} sides={operation.sides} />
      </Section>
      <Section id="metadata" title={t.operations.metadata}>
        <Table
          page={page}
          columns={[
            { header: t.operations.key, rowHeader: true, cell: ([key]: [string, string]) => key },
            { header: t.operations.value, cell: ([, value]: [string, string]) => value },
          ]}
          rows={Object.entries(operation.metadata ?? {})}
          rowKey={([key]) => key}
          empty={t.operations.noMetadata}
        />
      </Section>
      <Section id="timeline" title={t.operations.timeline}>
        <TimelineTable page={page} timeline={view.timeline} />
      </Section>
      <Section id="movements" title={t.operations.movements}>
        <MovementsTable page={page} movements={view.movements} />
      </Section>
      <CallbacksSection page={page} view={view} resendAction={resendAction} />
      {view.refunds.length > 0 && (
        <Section id="refunds" title={t.operations.refundsTitle(view.refunds.length)}>
          <OperationsTable page={page} operations={view.refunds} hrefOf={hrefOf} />
        </Section>
      )}
    </>
  )
}

function RecordList({
  page,
  view,
  hrefOf,
}: {
  page: PageContext<string>
  view: OperationView
  hrefOf: (operation: { mode: string; token: string }) => string
}) {
  const { t } = page
  const { operation } = view
  const money = (minor: number) => showMoney(page, minor, operation.currency)
  const first = operation.sides[0]
  const { refunds, refundOf, failure } = operation
  return (
    <SummaryList
      rows={[
        [t.operations.token, <code>{operation.token}</code>],
        [t.operations.kind, t.kinds[operation.kind]],
        [t.common.status, <StatusBadge page={page} status={operation.status} />],
        first && [t.common.amount, money(first.amountMinor)],
        first && [t.operations.fees, money(first.feesMinor)],
        [t.operations.merchantReference, operation.merchantReference],
        [t.operations.initiatedAt, showInstant(page, operation.initiatedAtUs)],
        operation.completedAtUs !== null && [
          t.operations.completedAt,
          showInstant(page, operation.completedAtUs),
        ],
        refunds && [
          t.operations.refunded,
          view.refunds.length > 0 ? (
            <a href="#refunds">{money(refunds.refundedMinor)}</a>
          ) : (
            money(refunds.refundedMinor)
          ),
        ],
        view.leftToRefundMinor !== undefined && [t.operations.leftToRefund, money(view.leftToRefundMinor)],
        refundOf && [
          t.operations.refundOf,
          <a href={hrefOf({ mode: operation.mode, token: refundOf.token })}>{refundOf.token}</a>,
        ],
        failure && [t.operations.failure, `${failure.code}: ${failure.message}`],
      ]}
    />
  )
}

function SidesTable({ page, sides }: { page: PageContext<string>; sides: readonly Side[] }) {
  const { t } = page
  const columns: Column<Side>[] = [
    { header: t.operations.side, rowHeader: true, cell: (side) => t.sideRoles[side.role] },
    { header: t.operations.channel, cell: (side) => side.channel },
    { header: t.operations.country, cell: (side) => side.country },
    { header: t.operations.phone, cell: (side) => side.customer.phoneNumber },
    {
      header: t.operations.fullName,
      cell: (side) => <span class="customer-name">{side.customer.fullName}</span>,
    },
    { header: t.common.status, cell: (side) => <StatusBadge page={page} status={side.status} /> },
    {
      header: t.common.amount,
      numeric: true,
      cell: (side) => showMoney(page, side.amountMinor, side.currency),
    },
    { header: t.operations.operatorReference, cell: (side) => side.operatorReference ?? '' },
    {
      header: t.operations.failure,
      cell: (side) => (side.failure ? `${side.failure.code}: ${side.failure.message}` : ''),
    },
  ]
  return <Table page={page} columns={columns} rows={sides} rowKey={(side) => side.role} />
}

function timelineWords(page: PageContext<string>, entry: TimelineEntry): [string, string] {
  const { t } = page
  if (entry.what === 'initiated') return [t.operations.initiated, '']
  if (entry.what === 'submitted') {
    const references = [entry.operatorReference, entry.providerReference].filter(Boolean).join(' · ')
    return [t.operations.submitted(t.sideRoles[entry.role]), references]
  }
  if (entry.what === 'corrected') return [t.operations.corrected(entry.connection, entry.day), '']
  return [t.operations.statusEvent(t.statuses[entry.status] ?? entry.status), entry.reason ?? '']
}

function TimelineTable({
  page,
  timeline,
}: {
  page: PageContext<string>
  timeline: readonly TimelineEntry[]
}) {
  const { t } = page
  const rows = timeline.map((entry, index) => ({
    index,
    atUs: entry.atUs,
    words: timelineWords(page, entry),
  }))
  return (
    <Table
      page={page}
      columns={[
        { header: t.common.when, cell: (row) => showInstant(page, row.atUs) },
        { header: t.operations.event, cell: (row) => row.words[0] },
        { header: t.operations.details, cell: (row) => row.words[1] },
      ]}
      rows={rows}
      rowKey={(row) => String(row.index)}
    />
  )
}

/** The operation's ledger lines, oldest first, in the order its money took effect. */
function MovementsTable({
  page,
  movements,
}: {
  page: PageContext<string>
  movements: readonly LedgerEntry[]
}) {
  const { t } = page
  const columns: Column<LedgerEntry>[] = [
    { header: t.common.when, cell: (entry) => showInstant(page, entry.createdAtUs) },
    { header: t.operations.movementReference, cell: (entry) => entry.reference },
    { header: t.operations.movementType, cell: (entry) => <MovementText page={page} entry={entry} /> },
    { header: t.common.status, cell: (entry) => <StatusBadge page={page} status={entry.status} /> },
    {
      header: t.common.amount,
      numeric: true,
      cell: (entry) => showMoney(page, entry.amountMinor, entry.currency),
    },
    {
      header: t.operations.balanceAfter,
      numeric: true,
      cell: (entry) =>
        entry.balanceAfterMinor === null ? '' : showMoney(page, entry.balanceAfterMinor, entry.currency),
    },
  ]
  const oldestFirst = inEffectOrder([...movements].reverse()).reverse()
  return <Table page={page} columns={columns} rows={oldestFirst} rowKey={(entry) => entry.reference} />
}

function RefundForm({ page, view }: { page: PageContext; view: OperationView }) {
  const { t } = page
  const { operation } = view
  if (!allows(page, 'refund') || view.leftToRefundMinor === undefined || view.leftToRefundMinor <= 0)
    return null
  return (
    <Section id="refund" title={t.operations.refundTitle}>
      <form method="post" action={`/dashboard/${operation.mode}/operations/${operation.token}/refund`}>
        <input type="hidden" name="reference" value={newRefundReference()} />
        <CsrfInput page={page} />
        <p>
          <label for="refund-amount">{t.operations.refundAmount(operation.currency)}</label>
          <input
            id="refund-amount"
            name="amount"
            type="text"
            inputmode="decimal"
            aria-describedby="refund-amount-hint"
          />
          <span id="refund-amount-hint" class="muted">
            {t.operations.refundAmountHint}
          </span>
        </p>
        <p>
          <label for="refund-reason">{t.operations.refundReason}</label>
          <input id="refund-reason" name="reason" type="text" maxLength={500} />
        </p>
        <button type="submit">{t.operations.refundSubmit}</button>
      </form>
    </Section>
  )
}

/** A pending cash-out a merchant may cancel (CONTRACT.md, Cancel): the API's cancel says whether it still can. */
function CancelStep({ page, view }: { page: PageContext; view: OperationView }) {
  const { t } = page
  const { operation } = view
  if (!allows(page, 'cancel') || !cancelableKinds.includes(operation.kind) || operation.status !== 'pending')
    return null
  return (
    <Section id="cancel" title={t.operations.cancelTitle}>
      <ConfirmForm
        page={page}
        action={`/dashboard/${operation.mode}/operations/${operation.token}/cancel`}
        id="cancel-intro"
        intro={t.operations.cancelIntro}
        button={t.operations.cancelSubmit}
        tone="danger"
      >
        <p>
          <label for="cancel-reason">{t.operations.cancelReason}</label>
          <input id="cancel-reason" name="reason" type="text" maxLength={500} />
        </p>
      </ConfirmForm>
    </Section>
  )
}
