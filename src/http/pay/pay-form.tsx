import type { PaymentPageView, PaymentRequest } from '../../app/payment-links/index.ts'
import { exampleMobileNumber } from '../../domain/phone-numbers.ts'
import { moneyText, type PayPageContext, payDocument } from './pay-pages.tsx'

/** A refusal of the form, in words, and the field it is about (for aria-invalid). */
export interface FormError {
  text: string
  field?: 'channel' | 'phoneNumber' | 'amount'
}

/** The payment form: amount (fixed, or a field), channel, phone number, name; a CSRF token. */
export function paymentFormPage(
  page: PayPageContext,
  view: PaymentPageView,
  form: { csrf: string; typed?: Partial<PaymentRequest>; error?: FormError },
): string {
  const { t } = page
  const { link } = view
  const money = (minor: number) => moneyText(page.locale, minor, link.currency)
  const fixed = link.amountMinor !== null ? money(link.amountMinor) : undefined
  return payDocument(
    page,
    t.pageTitle(view.merchantName),
    <>
      <p class="merchant">{t.to(view.merchantName)}</p>
      <h1>{link.description}</h1>
      {fixed && (
        <p class="amount">
          <span class="visually-hidden">{t.amountToPay}: </span>
          {fixed}
        </p>
      )}
      {form.error && (
        <div class="error" role="alert" id="form-error">
          <h2>{t.errorTitle}</h2>
          <p>{form.error.text}</p>
        </div>
      )}
      <form method="post" action={`/pay/${link.token}${page.locale === 'fr' ? '?lang=fr' : '?lang=en'}`}>
        <input type="hidden" name="csrf" value={form.csrf} />
        {link.range && <AmountField page={page} view={view} form={form} />}
        <ChannelChoice page={page} view={view} form={form} />
        <Field
          name="phoneNumber"
          label={t.phone}
          hint={t.phoneHint(exampleMobileNumber(link.country) ?? '')}
          type="tel"
          autocomplete="tel"
          required
          value={form.typed?.phoneNumber}
          invalid={form.error?.field === 'phoneNumber'}
        />
        <Field
          name="fullName"
          label={t.fullName}
          type="text"
          autocomplete="name"
          value={form.typed?.fullName}
        />
        <button type="submit">{fixed ? t.payAmount(fixed) : t.pay}</button>
      </form>
      <p class="hint">{t.feesNote}</p>
    </>,
  )
}

type FormProps = { page: PayPageContext; view: PaymentPageView; form: Parameters<typeof paymentFormPage>[2] }

function AmountField({ page, view, form }: FormProps) {
  const { t } = page
  const range = view.link.range!
  const money = (minor: number) => moneyText(page.locale, minor, view.link.currency)
  return (
    <Field
      name="amount"
      label={t.amountField(view.link.currency)}
      hint={t.amountHint(money(range.minMinor), money(range.maxMinor))}
      type="text"
      inputmode="decimal"
      required
      value={form.typed?.amount}
      invalid={form.error?.field === 'amount'}
    />
  )
}

function ChannelChoice({ page, view, form }: FormProps) {
  const chosen = form.typed?.channel ?? (view.channels.length === 1 ? view.channels[0]!.channel : undefined)
  const invalid = form.error?.field === 'channel'
  return (
    <fieldset
      aria-invalid={invalid ? 'true' : undefined}
      aria-describedby={invalid ? 'form-error' : undefined}
    >
      <legend>{page.t.channel}</legend>
      {view.channels.map(({ channel, name }) => (
        <label class="choice" key={channel}>
          <input type="radio" name="channel" value={channel} checked={chosen === channel} required />
          <span>{name}</span>
        </label>
      ))}
    </fieldset>
  )
}

interface FieldProps {
  name: string
  label: string
  hint?: string
  type: 'text' | 'tel'
  autocomplete?: string
  inputmode?: 'decimal' | 'tel'
  required?: boolean
  value?: string
  invalid?: boolean
}

function Field(props: FieldProps) {
  const id = `field-${props.name}`
  const described = [props.hint ? `${id}-hint` : '', props.invalid ? 'form-error' : '']
    .filter(Boolean)
    .join(' ')
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      {props.hint && (
        <p class="hint" id={`${id}-hint`}>
          {props.hint}
        </p>
      )}
      <input
        id={id}
        name={props.name}
        // Preact's types tie `list` to some input types; either of these two takes none.
        type={props.type as 'text'}
        autocomplete={props.autocomplete}
        inputmode={props.inputmode}
        required={props.required}
        value={props.value ?? ''}
        aria-invalid={props.invalid ? 'true' : undefined}
        aria-describedby={described || undefined}
      />
    </div>
  )
}
