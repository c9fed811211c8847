import type { PaymentPageView, PaymentRefusal } from '../../app/payment-links/index.ts'
import type { Operation } from '../../domain/operation.ts'
import { parseHttpUrl } from '../../domain/urls.ts'
import type { FormError } from './pay-form.tsx'
import {
  approvePage,
  continuePage,
  failedPage,
  messagePage,
  moneyText,
  type PayPageContext,
  paidPage,
} from './pay-pages.tsx'

/** The page of a link that takes no payment (expired, closed, completed, its merchant suspended, no channel); undefined when it takes them. */
export function refusalPage(page: PayPageContext, view: PaymentPageView): string | undefined {
  const { t } = page
  if (view.merchantSuspended) return messagePage(page, t.unavailableTitle, t.suspended)
  if (view.status !== 'active') return messagePage(page, t.unavailableTitle, t.unavailable[view.status])
  if (view.channels.length === 0) return messagePage(page, t.unavailableTitle, t.noChannel)
  return undefined
}

/** A refused form, in words: the status it answers, and the field at fault. */
export function formErrorOf(
  page: PayPageContext,
  view: PaymentPageView,
  result: PaymentRefusal,
): { status: number; error: FormError } {
  const { t } = page
  const money = (minor: number) => moneyText(page.locale, minor, view.link.currency)
  switch (result.refused) {
    case 'channel':
      return { status: 422, error: { text: t.errors.channel, field: 'channel' } }
    case 'phone':
      return { status: 422, error: { text: t.errors.phone, field: 'phoneNumber' } }
    case 'amount_missing':
    case 'amount_invalid':
      return { status: 422, error: { text: t.errors[result.refused], field: 'amount' } }
    case 'out_of_range':
      return {
        status: 422,
        error: {
          text: t.errors.out_of_range(money(result.minMinor), money(result.maxMinor)),
          field: 'amount',
        },
      }
    case 'in_flight':
      return { status: 409, error: { text: t.errors.in_flight } }
    case 'collect':
      return { status: 422, error: { text: t.errors.collect(result.message) } }
    default:
      return { status: 422, error: { text: t.unavailableTitle } }
  }
}

/**
 * Where a payment of the link stands (a succeeded one with a succeededUrl is sent there instead,
 * `returnUrlOf`): pending (the operator's or the sandbox's page to go to
 * first, when the payment has one and the customer comes from the form; otherwise a page that
 * follows it by itself, unless the customer turned that off), paid, or failed (with a retry while
 * the link takes payments).
 */
export function outcomePage(
  page: PayPageContext,
  view: PaymentPageView,
  operation: Operation,
  follow: { fromForm: boolean; refresh: boolean },
): string {
  const side = operation.sides[0]!
  const amount = moneyText(page.locale, side.transactionAmountMinor, side.currency)
  if (operation.status === 'pending') {
    const operatorUrl = operation.redirectUrl ?? undefined
    if (operatorUrl && follow.fromForm) return continuePage(page, operatorUrl)
    return approvePage(page, {
      amount,
      merchantName: view.merchantName,
      operatorUrl,
      refresh: follow.refresh,
    })
  }
  if (operation.status === 'succeeded')
    return paidPage(page, { amount, merchantName: view.merchantName, reference: operation.merchantReference })
  return failedPage(page, {
    reason: operation.failure?.message,
    retryPath: view.status === 'active' ? `/pay/${view.link.token}?lang=${page.locale}` : undefined,
  })
}

/** The merchant's succeededUrl with the collect's token, merchantReference and status, as the checkout's outcome URLs carry them. */
export function returnUrlOf(view: PaymentPageView, operation: Operation): string | undefined {
  const url = view.link.succeededUrl ? parseHttpUrl(view.link.succeededUrl) : undefined
  if (!url) return undefined
  url.searchParams.set('token', operation.token)
  url.searchParams.set('merchantReference', operation.merchantReference)
  url.searchParams.set('status', operation.status)
  return url.toString()
}
