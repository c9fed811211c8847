import type { ChannelView } from '../../../app/catalogue.ts'
import { type LinkForm, linksPerPage, type TalliedLink } from '../../../app/dashboard/payment-link-actions.ts'
import type { Country } from '../../../domain/money.ts'
import type { Page } from '../../../domain/pages.ts'
import { paymentLinkStatus } from '../../../domain/payment-links.ts'
import {
  type Column,
  Notification,
  numberedPages,
  Pagination,
  Section,
  showInstant,
  showMoney,
  Table,
} from '../../pages/kit/index.ts'
import { allows, memberPage, type PageContext } from '../layout.tsx'
import { CreateForm } from './payment-link-form.tsx'
import { amountText, LinkStatus } from './payment-link-page.tsx'

export interface LinksView {
  list: Page<TalliedLink>
  /** The channels that collect, of every country the merchant may use. */
  channels: ChannelView[]
  /** The country the create form is for: its channels and currency are the form's. */
  country: Country
  nowUs: number
  error?: string
  /** What the member typed, shown again after a refusal. */
  form: LinkForm
  /** The list's page number. */
  current: number
}

/** The payment links page: the create form (for those who may), and the links, newest first. */
export function linksPage(page: PageContext, view: LinksView): string {
  const { t } = page
  return memberPage(
    page,
    t.paymentLinks.title,
    <>
      <Notification error={view.error} />
      <p>{t.paymentLinks.intro}</p>
      {allows(page, 'links') && <CreateForm page={page} view={view} />}
      <LinkList page={page} view={view} />
    </>,
  )
}

function LinkList({ page, view }: { page: PageContext; view: LinksView }) {
  const { t } = page
  const columns: Column<TalliedLink>[] = [
    {
      header: t.paymentLinks.description,
      rowHeader: true,
      cell: ({ link }) => (
        <a href={`/dashboard/${link.mode}/payment-links/${link.token}`}>{link.description}</a>
      ),
    },
    {
      header: t.common.status,
      cell: (tallied) => (
        <LinkStatus page={page} status={paymentLinkStatus(tallied.link, tallied.tally, view.nowUs)} />
      ),
    },
    { header: t.common.amount, cell: (tallied) => amountText(page, tallied) },
    { header: t.paymentLinks.payments, numeric: true, cell: ({ tally }) => tally.paymentCount },
    {
      header: t.paymentLinks.collected,
      numeric: true,
      cell: ({ link, tally }) => showMoney(page, tally.collectedMinor, link.currency),
    },
    { header: t.paymentLinks.expires, cell: ({ link }) => showInstant(page, link.expiresAtUs) },
  ]
  const path = `/dashboard/${page.mode}/payment-links`
  return (
    <Section id="links" title={t.paymentLinks.list}>
      <Table
        page={page}
        id="links-table"
        columns={columns}
        rows={view.list.items}
        rowKey={({ link }) => link.token}
        empty={t.paymentLinks.noLinks}
      />
      <Pagination
        page={page}
        label={t.payoutBatches.pages}
        {...numberedPages(path, view.current, view.list.total, linksPerPage)}
      />
    </Section>
  )
}
