import { parseTimestamp } from '../../domain/clock.ts'
import { newOperationToken } from '../../domain/identifiers.ts'
import { type Country, type Currency, countries, toMajorUnits, toMinorUnits } from '../../domain/money.ts'
import type { Metadata, Operation } from '../../domain/operation.ts'
import type { Page, PageRequest } from '../../domain/pages.ts'
import {
  defaultLinkLifetimeUs,
  linkPaymentKind,
  longestLinkLifetimeUs,
  type PaymentLink,
  paymentLinkStatus,
} from '../../domain/payment-links.ts'
import { ApiError, type FieldError, validationFailed } from '../../errors.ts'
import type { PaymentLinkFilter, TalliedLink } from '../../store/repositories/payment-links.ts'
import { listChannels } from '../catalogue.ts'
import type { AppContext } from '../context.ts'
import { hashRequest, refuseInternalUrls } from '../initiate.ts'
import { listOperations } from '../operations.ts'
import type { Principal } from '../principal.ts'

export type { TalliedLink }

/** A request to create a link, as the API's schema admits it (amounts in major units). */
export interface PaymentLinkInput {
  merchantReference: string
  description: string
  country: string
  amount?: number
  amountRange?: { min: number; max: number }
  channels?: string[]
  reusable?: boolean
  expiresAt?: string
  callbackUrl?: string
  succeededUrl?: string
  metadata?: Metadata
}

/**
 * Creates a link, or answers the one its merchantReference already names: the same request
 * again is that link, another request under the reference a 409. A refusal is first checked
 * against the reference, so a retry gets what its first try made whatever changed since.
 */
export async function createPaymentLink(
  context: AppContext,
  principal: Principal,
  input: PaymentLinkInput,
): Promise<TalliedLink> {
  const requestHash = hashRequest(input as never)
  let link: PaymentLink
  try {
    link = await draftLink(context, principal, input, requestHash)
  } catch (refusal) {
    const existing = await existingLink(context, principal, input.merchantReference, requestHash)
    if (existing) return existing
    throw refusal
  }
  if (!(await context.store.paymentLinks.insertIfNew(link))) {
    const existing = await existingLink(context, principal, input.merchantReference, requestHash)
    if (existing) return existing
  }
  return { link, tally: { paymentCount: 0, collectedMinor: 0 } }
}

async function existingLink(
  context: AppContext,
  principal: Principal,
  merchantReference: string,
  requestHash: string,
): Promise<TalliedLink | undefined> {
  const { merchantId, mode } = principal
  const found = await context.store.paymentLinks.findByReference(merchantId, mode, merchantReference)
  if (!found) return undefined
  if (found.requestHash !== requestHash)
    throw new ApiError(
      'duplicate_merchant_reference',
      `The merchantReference ${merchantReference} already names payment link ${found.token}, made with another body; use a new merchantReference.`,
      undefined,
      undefined,
      { token: found.token },
    )
  return context.store.paymentLinks.findByToken(merchantId, mode, found.token)
}

async function draftLink(
  context: AppContext,
  principal: Principal,
  input: PaymentLinkInput,
  requestHash: string,
): Promise<PaymentLink> {
  const country = input.country as Country
  const currency = countries[country] as Currency | undefined
  if (!currency)
    throw validationFailed([
      {
        field: 'country',
        code: 'unknown_country',
        message: `country must be one of ${Object.keys(countries).join(', ')}.`,
      },
    ])
  const amounts = linkAmounts(input, currency)
  const channels = await offeredChannels(context, principal, input, amounts)
  const nowUs = context.clock.nowUs()
  const expiresAtUs = expiryOf(input.expiresAt, nowUs)
  if (principal.mode === 'live') await refuseInternalUrls(input as never)
  return {
    token: newOperationToken(),
    merchantId: principal.merchantId,
    mode: principal.mode,
    merchantReference: input.merchantReference,
    requestHash,
    description: input.description,
    country,
    currency,
    ...amounts,
    channels,
    reusable: input.reusable ?? false,
    expiresAtUs,
    callbackUrl: input.callbackUrl ?? null,
    succeededUrl: input.succeededUrl ?? null,
    ...(input.metadata ? { metadata: input.metadata } : {}),
    createdAtUs: nowUs,
    closedAtUs: null,
  }
}

type LinkAmounts = Pick<PaymentLink, 'amountMinor' | 'range'>

/** Exactly one of amount and amountRange, each in the currency's minor units. */
function linkAmounts(input: PaymentLinkInput, currency: Currency): LinkAmounts {
  const errors: FieldError[] = []
  const minor = (field: string, value: number) => {
    const converted = toMinorUnits(value, currency)
    if (converted === undefined || converted <= 0)
      errors.push({
        field,
        code: 'invalid_amount',
        message: `${field} must be a positive amount with at most the decimals of ${currency}.`,
      })
    return converted ?? 0
  }
  if ((input.amount === undefined) === (input.amountRange === undefined))
    throw validationFailed([
      {
        field: 'amount',
        code: 'amount_or_range',
        message:
          'Give exactly one of amount (a fixed amount) and amountRange ({min, max}: the customer types it).',
      },
    ])
  if (input.amount !== undefined) {
    const amountMinor = minor('amount', input.amount)
    if (errors.length > 0) throw validationFailed(errors)
    return { amountMinor, range: null }
  }
  const range = {
    minMinor: minor('amountRange.min', input.amountRange!.min),
    maxMinor: minor('amountRange.max', input.amountRange!.max),
  }
  if (errors.length === 0 && range.minMinor > range.maxMinor)
    errors.push({
      field: 'amountRange.max',
      code: 'invalid_range',
      message: 'amountRange.max must be at least amountRange.min.',
    })
  if (errors.length > 0) throw validationFailed(errors)
  return { amountMinor: null, range }
}

/**
 * The channels offered: those asked for, each of which must collect in the country and take the
 * link's amounts; by default every channel the mode serves there whose limits take them.
 */
async function offeredChannels(
  context: AppContext,
  principal: Principal,
  input: PaymentLinkInput,
  amounts: LinkAmounts,
): Promise<string[]> {
  const views = await listChannels(context, principal, { country: input.country, kind: linkPaymentKind })
  const currency = countries[input.country as Country]
  const [low, high] = amounts.range
    ? [amounts.range.minMinor, amounts.range.maxMinor]
    : [amounts.amountMinor!, amounts.amountMinor!]
  const limits = (channel: string) => {
    // Listed for collects alone: each channel's one operation is the collect's.
    const collect = views.find((view) => view.channel === channel)?.operations[0]
    return (
      collect && {
        min: toMinorUnits(collect.minAmount, currency)!,
        max: toMinorUnits(collect.maxAmount, currency)!,
      }
    )
  }
  const takes = (channel: string) => {
    const limit = limits(channel)
    return limit !== undefined && low >= limit.min && high <= limit.max
  }
  const served = views.map((view) => view.channel)
  if (input.channels === undefined) {
    const fitting = served.filter(takes)
    if (fitting.length > 0) return fitting
    if (served.length === 0)
      throw new ApiError(
        'channel_unavailable',
        `No channel collects in ${input.country} in ${principal.mode} mode: GET /api/v1/channels lists what this merchant may use.`,
      )
    throw new ApiError(
      'amount_out_of_range',
      `No channel in ${input.country} takes this amount: ${describeLimits(served, limits, currency)}.`,
    )
  }
  const errors: FieldError[] = []
  input.channels.forEach((channel, index) => {
    if (!served.includes(channel))
      errors.push({
        field: `channels[${index}]`,
        code: 'unknown_channel',
        message: `channels[${index}] must be one of ${served.join(', ') || '(none in this country)'}.`,
      })
  })
  if (errors.length > 0)
    throw new ApiError(
      'channel_unavailable',
      `Channels not available in ${input.country}: ${errors.map((e) => e.field).join(', ')}.`,
      errors,
    )
  const misfits = input.channels.filter((channel) => !takes(channel))
  if (misfits.length > 0)
    throw new ApiError(
      'amount_out_of_range',
      `The amount is outside these channels' limits: ${describeLimits(misfits, limits, currency)}.`,
    )
  return [...new Set(input.channels)]
}

function describeLimits(
  channels: string[],
  limits: (channel: string) => { min: number; max: number } | undefined,
  currency: Currency,
): string {
  return channels
    .map((channel) => {
      const limit = limits(channel)!
      return `${channel} ${toMajorUnits(limit.min, currency)} to ${toMajorUnits(limit.max, currency)} ${currency}`
    })
    .join('; ')
}

function expiryOf(expiresAt: string | undefined, nowUs: number): number {
  if (expiresAt === undefined) return nowUs + defaultLinkLifetimeUs
  const atUs = parseTimestamp(expiresAt)
  const refuse = (message: string) =>
    validationFailed([{ field: 'expiresAt', code: 'invalid_expiry', message }])
  if (atUs === undefined)
    throw refuse('expiresAt must be an ISO 8601 date-time, such as 2026-12-01T00:00:00Z.')
  if (atUs <= nowUs) throw refuse('expiresAt must be in the future.')
  if (atUs > nowUs + longestLinkLifetimeUs) throw refuse('expiresAt must be at most 90 days from now.')
  return atUs
}

/** The list's filters; a status is the one the record shows now. */
export type PaymentLinkListFilter = Omit<PaymentLinkFilter, 'nowUs'>

export function listPaymentLinks(
  context: AppContext,
  principal: Principal,
  page: PageRequest,
  filter: PaymentLinkListFilter = {},
): Promise<Page<TalliedLink>> {
  return context.store.paymentLinks.list(
    principal.merchantId,
    principal.mode,
    { ...filter, nowUs: context.clock.nowUs() },
    page,
  )
}

/** Another merchant's token, the other mode's, or an unknown one: the same 404. */
export async function paymentLinkDetails(
  context: AppContext,
  principal: Principal,
  token: string,
): Promise<TalliedLink> {
  const found = await context.store.paymentLinks.findByToken(principal.merchantId, principal.mode, token)
  if (!found) throw new ApiError('not_found', `No payment link has token ${token}.`)
  return found
}

/**
 * Closes an active link: its page then takes no payment. Closing it again answers the same closed
 * link; a link that already takes no payments (expired, completed) is a 422 link_unavailable.
 */
export async function closePaymentLink(
  context: AppContext,
  principal: Principal,
  token: string,
): Promise<TalliedLink> {
  const found = await paymentLinkDetails(context, principal, token)
  const status = paymentLinkStatus(found.link, found.tally, context.clock.nowUs())
  if (status === 'closed') return found
  if (status !== 'active')
    throw new ApiError(
      'link_unavailable',
      `This payment link is already ${status}: it takes no more payments, so there is nothing to close.`,
    )
  await context.store.paymentLinks.close(principal.merchantId, principal.mode, token, context.clock.nowUs())
  return paymentLinkDetails(context, principal, token)
}

/** The collects paid through the link, newest first. */
export async function paymentLinkPayments(
  context: AppContext,
  principal: Principal,
  token: string,
  page: PageRequest,
): Promise<Page<Operation>> {
  await paymentLinkDetails(context, principal, token)
  return listOperations(context, principal, linkPaymentKind, { paymentLink: token }, page)
}
