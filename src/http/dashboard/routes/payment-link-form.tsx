import type { ChannelView } from '../../../app/catalogue.ts'
import type { LinkForm } from '../../../app/dashboard/payment-link-actions.ts'
import { countries } from '../../../domain/money.ts'
import { CsrfInput, countryName, Section } from '../../pages/kit/index.ts'
import type { PageContext } from '../layout.tsx'
import type { LinksView } from './payment-links-page.tsx'

/**
 * The country comes first, in a form of its own: the create form below it then offers only that
 * country's channels and names its currency, with no script.
 */
export function CreateForm({ page, view }: { page: PageContext; view: LinksView }) {
  const { t } = page
  const { form, country } = view
  const currency = countries[country]
  const base = `/dashboard/${page.mode}/payment-links`
  return (
    <Section id="create-link" title={t.paymentLinks.create}>
      <div class="card">
        <CountryChoice page={page} view={view} />
        <form method="post" action={base} class="stack" aria-describedby="link-country">
          <CsrfInput page={page} />
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
    </Section>
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
