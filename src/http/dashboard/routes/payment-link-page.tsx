import type { TalliedLink } from '../../../app/dashboard/payment-link-actions.ts'
import type { Operation } from '../../../domain/operation.ts'
import type { Page } from '../../../domain/pages.ts'
import { type PaymentLinkStatus, paymentLinkStatus } from '../../../domain/payment-links.ts'
import {
  ConfirmForm,
  Notification,
  Section,
  SummaryList,
  showInstant,
  showMoney,
} from '../../pages/kit/index.ts'
import { allows, memberPage, type PageContext } from '../layout.tsx'
import { OperationsTable } from '../operations-table.tsx'

export interface LinkView {
  link: TalliedLink
  payments: Page<Operation>
  url: string
  /** The QR code of the link's address, as a data: SVG. */
  qr: string
  nowUs: number
}

export function LinkStatus({ page, status }: { page: PageContext; status: PaymentLinkStatus }) {
  return <span class={`status status-link-${status}`}>{page.t.paymentLinks.statuses[status]}</span>
}

/** The link's amount: fixed, or the range the customer types it in. */
export function amountText(page: PageContext, { link }: TalliedLink): string {
  const money = (minor: number) => showMoney(page, minor, link.currency)
  if (link.amountMinor !== null) return money(link.amountMinor)
  return link.range ? `${money(link.range.minMinor)} – ${money(link.range.maxMinor)}` : ''
}

/** A payment link's page: its QR code and record, closing it, and the payments made through it. */
export function linkPage(
  page: PageContext,
  view: LinkView,
  note: { notice?: string; error?: string },
): string {
  const { t } = page
  const { link, tally } = view.link
  const status = paymentLinkStatus(link, tally, view.nowUs)
  return memberPage(
    page,
    t.paymentLinks.linkTitle(link.description),
    <>
      <Notification {...note} />
      <Section id="link-record" title={t.paymentLinks.record}>
        <img class="qr" src={view.qr} alt={t.paymentLinks.qrAlt(link.description)} width={192} height={192} />
        <SummaryList
          rows={[
            [t.paymentLinks.url, <a href={view.url}>{view.url}</a>],
            [t.common.status, <LinkStatus page={page} status={status} />],
            [t.common.amount, amountText(page, view.link)],
            [t.paymentLinks.channels, link.channels.join(', ')],
            [t.paymentLinks.reusable, link.reusable ? t.common.yes : t.common.no],
            [t.paymentLinks.payments, String(tally.paymentCount)],
            [t.paymentLinks.collected, showMoney(page, tally.collectedMinor, link.currency)],
            [t.paymentLinks.expires, showInstant(page, link.expiresAtUs)],
            [t.paymentLinks.reference, link.merchantReference],
            [t.paymentLinks.token, <code>{link.token}</code>],
          ]}
        />
      </Section>
      {status === 'active' && allows(page, 'links') && (
        <Section id="close-link" title={t.paymentLinks.close}>
          <ConfirmForm
            page={page}
            action={`/dashboard/${link.mode}/payment-links/${link.token}/close`}
            id="close-intro"
            intro={t.paymentLinks.closeIntro}
            button={t.paymentLinks.close}
            tone="danger"
          />
        </Section>
      )}
      <Section id="link-payments" title={t.paymentLinks.paymentsTitle}>
        <OperationsTable page={page} operations={view.payments.items} />
      </Section>
    </>,
  )
}
