import type { ChannelView } from '../../../app/catalogue.ts'
import { type LinkForm, linksPerPage, type TalliedLink } from '../../../app/dashboard/payment-link-actions.ts'
import { type Country, countries } from '../../../domain/money.ts'
import type { Operation } from '../../../domain/operation.ts'
import type { Page } from '../../../domain/pages.ts'
import { type PaymentLinkStatus, paymentLinkStatus } from '../../../domain/payment-links.ts'
import { countryName, formatInstant, formatMoney } from '../format.ts'
import { allows, CsrfField, memberPage, type PageContext } from '../layout.tsx'
import { OperationsTable } from '../operations-table.tsx'
import { ListPages } from './payout-batch-page.tsx'

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

function when(page: PageContext, atUs: number): string {
  return formatInstant(atUs, page.locale, page.member?.timeZone ?? 'UTC')
}

function LinkStatus({ page, status }: { page: PageContext; status: PaymentLinkStatus }) {
  return <span class={`status status-link-${status}`}>{page.t.paymentLinks.statuses[status]}</span>
}

/** The link's amount: fixed, or the range the customer types it in. */
function amountText(page: PageContext, { link }: TalliedLink): string {
  const money = (minor: number) => formatMoney(minor, link.currency, page.locale)
  if (link.amountMinor !== null) return money(link.amountMinor)
  return link.range ? `${money(link.range.minMinor)} – ${money(link.range.maxMinor)}` : ''
}

export function linksPage(page: PageContext, view: LinksView): string {
  const { t } = page
  return memberPage(
    page,
    t.paymentLinks.title,
    <>
      {view.error && (
        <p class="error" role="alert">
          {view.error}
        </p>
      )}
      <p>{t.paymentLinks.intro}</p>
      {allows(page, 'links') && <CreateForm page={page} view={view} />}
      <LinkList page={page} view={view} />
    </>,
  )
}

/**
 * The country comes first, in a form of its own: the create form below it then offers only that
 * country's channels and names its currency, with no script.
 */
function CreateForm({ page, view }: { page: PageContext; view: LinksView }) {
  const { t } = page
  const { form, country } = view
  const currency = countries[country]
  const base = `/dashboard/${page.mode}/payment-links`
  return (
    <section aria-labelledby="create-link">
      <h2 id="create-link">{t.paymentLinks.create}</h2>
      <div class="card">
        <CountryChoice page={page} view={view} />
        <form method="post" action={base} class="stack" aria-describedby="link-country">
          <CsrfField page={page} />
          <input type="hidden" name="country" value={country} />
          <p id="link-country">
            <strong>{t.paymentLinks.forCountry(countryName(country, page.locale), currency)}</strong>
          </p>
          <label>
            {t.paymentLinks.description}
            <input
              name="description"
              required
              maxLength={200}
              value={form.description ?? ''}
              aria-describedby="description-hint"
            />
          </label>
          <p id="description-hint" class="muted">
            {t.paymentLinks.descriptionHint}
          </p>
          <AmountFields page={page} form={form} currency={currency} />
          <ChannelBoxes
            page={page}
            channels={view.channels.filter((row) => row.country === country)}
            form={form}
          />
          <label class="check">
            <input type="checkbox" name="reusable" checked={form.reusable === 'on'} />
            {t.paymentLinks.reusable}
          </label>
          <label>
            {t.paymentLinks.expiresInDays}
            <input name="expiresInDays" type="number" min={1} max={90} value={form.expiresInDays ?? '7'} />
          </label>
          <label>
            {t.paymentLinks.reference}
            <input name="reference" maxLength={60} value={form.reference ?? ''} />
          </label>
          <p>
            <button type="submit">{t.paymentLinks.submit}</button>
          </p>
        </form>
      </div>
    </section>
  )
}

/** The countries the merchant's channels serve, by name in the page's language. */
function CountryChoice({ page, view }: { page: PageContext; view: LinksView }) {
  const { t } = page
  const served = [...new Set(view.channels.map((row) => row.country))]
    .map((code) => ({ code, name: countryName(code, page.locale) }))
    .sort((a, b) => a.name.localeCompare(b.name, page.locale))
  return (
    <form method="get" action={`/dashboard/${page.mode}/payment-links`} class="inline">
      <label>
        {t.paymentLinks.country}
        <select name="country">
          {served.map(({ code, name }) => (
            <option key={code} value={code} selected={view.country === code}>
              {name}
            </option>
          ))}
        </select>
      </label>
      <button type="submit" class="secondary">
        {t.paymentLinks.chooseCountry}
      </button>
    </form>
  )
}

function AmountFields({ page, form, currency }: { page: PageContext; form: LinkForm; currency: string }) {
  const { t } = page
  const range = form.amountKind === 'range'
  return (
    <fieldset>
      <legend>{t.paymentLinks.amountKind}</legend>
      <label class="check">
        <input type="radio" name="amountKind" value="fixed" checked={!range} />
        {t.paymentLinks.fixed}
      </label>
      <label>
        {t.paymentLinks.amount(currency)}
        <input name="amount" inputMode="decimal" value={form.amount ?? ''} />
      </label>
      <label class="check">
        <input type="radio" name="amountKind" value="range" checked={range} />
        {t.paymentLinks.range}
      </label>
      <label>
        {t.paymentLinks.min(currency)}
        <input name="min" inputMode="decimal" value={form.min ?? ''} />
      </label>
      <label>
        {t.paymentLinks.max(currency)}
        <input name="max" inputMode="decimal" value={form.max ?? ''} />
      </label>
    </fieldset>
  )
}

function ChannelBoxes({
  page,
  channels,
  form,
}: {
  page: PageContext
  channels: ChannelView[]
  form: LinkForm
}) {
  const sorted = [...channels].sort((a, b) => a.name.localeCompare(b.name, page.locale))
  return (
    <fieldset>
      <legend>{page.t.paymentLinks.channels}</legend>
      {sorted.map((row) => (
        <label class="check" key={row.channel}>
          <input
            type="checkbox"
            name={`channel-${row.channel}`}
            checked={form[`channel-${row.channel}`] === 'on'}
          />
          {row.name}
        </label>
      ))}
    </fieldset>
  )
}

function LinkList({ page, view }: { page: PageContext; view: LinksView }) {
  const { t } = page
  if (view.list.items.length === 0)
    return (
      <section aria-labelledby="links">
        <h2 id="links">{t.paymentLinks.list}</h2>
        <p class="muted">{t.paymentLinks.noLinks}</p>
      </section>
    )
  return (
    <section aria-labelledby="links">
      <h2 id="links">{t.paymentLinks.list}</h2>
      <table id="links-table">
        <thead>
          <tr>
            <th scope="col">{t.paymentLinks.description}</th>
            <th scope="col">{t.common.status}</th>
            <th scope="col">{t.common.amount}</th>
            <th scope="col" class="num">
              {t.paymentLinks.payments}
            </th>
            <th scope="col" class="num">
              {t.paymentLinks.collected}
            </th>
            <th scope="col">{t.paymentLinks.expires}</th>
          </tr>
        </thead>
        <tbody>
          {view.list.items.map((tallied) => (
            <tr key={tallied.link.token}>
              <th scope="row">
                <a href={`/dashboard/${tallied.link.mode}/payment-links/${tallied.link.token}`}>
                  {tallied.link.description}
                </a>
              </th>
              <td>
                <LinkStatus page={page} status={paymentLinkStatus(tallied.link, tallied.tally, view.nowUs)} />
              </td>
              <td>{amountText(page, tallied)}</td>
              <td class="num">{tallied.tally.paymentCount}</td>
              <td class="num">
                {formatMoney(tallied.tally.collectedMinor, tallied.link.currency, page.locale)}
              </td>
              <td>{when(page, tallied.link.expiresAtUs)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <ListPages
        page={page}
        path={`/dashboard/${page.mode}/payment-links`}
        current={view.current}
        total={view.list.total}
        perPage={linksPerPage}
      />
    </section>
  )
}

export interface LinkView {
  link: TalliedLink
  payments: Page<Operation>
  url: string
  /** The QR code of the link's address, as a data: SVG. */
  qr: string
  nowUs: number
}

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
      {note.notice && (
        <p class="notice" role="status">
          {note.notice}
        </p>
      )}
      {note.error && (
        <p class="error" role="alert">
          {note.error}
        </p>
      )}
      <LinkRecord page={page} view={view} status={status} />
      {status === 'active' && allows(page, 'links') && (
        <section aria-labelledby="close-link">
          <h2 id="close-link">{t.paymentLinks.close}</h2>
          <form
            method="post"
            action={`/dashboard/${link.mode}/payment-links/${link.token}/close`}
            class="inline"
          >
            <CsrfField page={page} />
            <p id="close-intro">{t.paymentLinks.closeIntro}</p>
            <button type="submit" class="danger" aria-describedby="close-intro">
              {t.paymentLinks.close}
            </button>
          </form>
        </section>
      )}
      <section aria-labelledby="link-payments">
        <h2 id="link-payments">{t.paymentLinks.paymentsTitle}</h2>
        <OperationsTable page={page} operations={view.payments.items} />
      </section>
    </>,
  )
}

function LinkRecord({
  page,
  view,
  status,
}: {
  page: PageContext
  view: LinkView
  status: PaymentLinkStatus
}) {
  const { t } = page
  const { link, tally } = view.link
  const row = (label: string, value: preact.ComponentChildren) => (
    <tr>
      <th scope="row">{label}</th>
      <td>{value}</td>
    </tr>
  )
  return (
    <section aria-labelledby="link-record">
      <h2 id="link-record">{t.paymentLinks.record}</h2>
      <img class="qr" src={view.qr} alt={t.paymentLinks.qrAlt(link.description)} width={192} height={192} />
      <table>
        <tbody>
          {row(t.paymentLinks.url, <a href={view.url}>{view.url}</a>)}
          {row(t.common.status, <LinkStatus page={page} status={status} />)}
          {row(t.common.amount, amountText(page, view.link))}
          {row(t.paymentLinks.channels, link.channels.join(', '))}
          {row(t.paymentLinks.reusable, link.reusable ? t.common.yes : t.common.no)}
          {row(t.paymentLinks.payments, String(tally.paymentCount))}
          {row(t.paymentLinks.collected, formatMoney(tally.collectedMinor, link.currency, page.locale))}
          {row(t.paymentLinks.expires, when(page, link.expiresAtUs))}
          {row(t.paymentLinks.reference, link.merchantReference)}
          {row(t.paymentLinks.token, <code>{link.token}</code>)}
        </tbody>
      </table>
    </section>
  )
}
