import { randomBytes } from 'node:crypto'
import { formatTimestamp } from '../../domain/clock.ts'
import { type Country, countries, isCountry } from '../../domain/money.ts'
import type { Operation } from '../../domain/operation.ts'
import type { Page } from '../../domain/pages.ts'
import { ApiError } from '../../errors.ts'
import { type ChannelView, listChannels } from '../catalogue.ts'
import type { AppContext } from '../context.ts'
import {
  closePaymentLink,
  createPaymentLink,
  listPaymentLinks,
  type PaymentLinkInput,
  paymentLinkDetails,
  paymentLinkPayments,
  type TalliedLink,
} from '../payment-links/index.ts'
import type { Principal } from '../principal.ts'
import { audit } from './audit.ts'
import type { BatchMember } from './payout-batch-actions.ts'

export type { TalliedLink }

export const linksPerPage = 50
const dayUs = 86_400_000_000

/** The channels a link of this mode may offer: those that collect, per country. */
export function linkChannels(context: AppContext, principal: Principal): Promise<ChannelView[]> {
  return listChannels(context, principal, { kind: 'collect' })
}

/** The create form as the member filled it: field names as the page writes them. */
export type LinkForm = Record<string, string | undefined>

/** A decimal number written by a person (1500, 1500.5, 1 500): undefined when it is not one. */
function amountOf(text: string | undefined): number | undefined {
  const compact = (text ?? '').replace(/[\s\u00a0]/g, '').replace(',', '.')
  if (!/^[0-9]+(\.[0-9]+)?$/.test(compact)) return undefined
  const amount = Number(compact)
  return amount > 0 ? amount : undefined
}

/**
 * The form read into the API's request, with the checks the API's schema makes on it:
 * `description_invalid` (1 to 200 characters), `amount_invalid` (numbers, the smallest first).
 */
export function linkInputOf(
  form: LinkForm,
  nowUs: number,
): PaymentLinkInput | 'amount_invalid' | 'description_invalid' {
  const country = (form.country ?? '').toUpperCase()
  const channels = Object.keys(form)
    .filter((name) => name.startsWith('channel-') && form[name] === 'on')
    .map((name) => name.slice('channel-'.length))
  const days = Math.min(90, Math.max(1, Number.parseInt(form.expiresInDays ?? '7', 10) || 7))
  const base = {
    merchantReference: form.reference?.trim() || `link-${randomBytes(5).toString('hex')}`,
    description: (form.description ?? '').trim(),
    country,
    ...(channels.length > 0 ? { channels } : {}),
    reusable: form.reusable === 'on',
    expiresAt: formatTimestamp(nowUs + days * dayUs),
  }
  if (base.description.length < 1 || base.description.length > 200) return 'description_invalid'
  if (form.amountKind === 'range') {
    const min = amountOf(form.min)
    const max = amountOf(form.max)
    if (min === undefined || max === undefined || min > max) return 'amount_invalid'
    return { ...base, amountRange: { min, max } }
  }
  const amount = amountOf(form.amount)
  return amount === undefined ? 'amount_invalid' : { ...base, amount }
}

/**
 * The country a new link's form is for: the one asked for when the merchant's channels serve it;
 * else the country of the merchant's latest link; else the one with the most channels.
 */
export function linkCountryOf(
  channels: ChannelView[],
  asked: string | undefined,
  latest: string | undefined,
): Country {
  const served = new Map<Country, number>()
  for (const row of channels)
    if (isCountry(row.country)) served.set(row.country, (served.get(row.country) ?? 0) + 1)
  for (const candidate of [asked?.toUpperCase(), latest])
    if (candidate && isCountry(candidate) && served.has(candidate)) return candidate
  const [most] = [...served].sort(([a, aCount], [b, bCount]) => bCount - aCount || a.localeCompare(b))
  return most?.[0] ?? (Object.keys(countries).find(isCountry) as Country)
}

/** The first channel ticked that the link's country does not offer, with those it does. */
export function channelOutsideCountry(
  input: PaymentLinkInput,
  channels: ChannelView[],
): { channel: string; offered: ChannelView[] } | undefined {
  const offered = channels.filter((row) => row.country === input.country)
  const channel = input.channels?.find((code) => !offered.some((row) => row.channel === code))
  return channel === undefined ? undefined : { channel, offered }
}

const actorOf = (member: BatchMember) =>
  ({ kind: 'member', memberId: member.memberId, email: member.email, address: member.address }) as const

async function answered(
  work: () => Promise<TalliedLink>,
): Promise<{ link: TalliedLink } | { apiError: ApiError }> {
  try {
    return { link: await work() }
  } catch (error) {
    if (error instanceof ApiError && error.status < 500) return { apiError: error }
    throw error
  }
}

/** A link made by a member, as the API makes one, with its audit row. */
export async function createLinkFromDashboard(
  context: AppContext,
  member: BatchMember,
  principal: Principal,
  input: PaymentLinkInput,
): Promise<{ link: TalliedLink } | { apiError: ApiError }> {
  const outcome = await answered(() => createPaymentLink(context, principal, input))
  if ('link' in outcome)
    await audit(context, actorOf(member), {
      merchantId: principal.merchantId,
      mode: principal.mode,
      action: 'payment_link.created',
      target: outcome.link.link.token,
      after: input,
    })
  return outcome
}

export async function closeLinkFromDashboard(
  context: AppContext,
  member: BatchMember,
  principal: Principal,
  token: string,
): Promise<{ link: TalliedLink } | { apiError: ApiError }> {
  const outcome = await answered(() => closePaymentLink(context, principal, token))
  if ('link' in outcome)
    await audit(context, actorOf(member), {
      merchantId: principal.merchantId,
      mode: principal.mode,
      action: 'payment_link.closed',
      target: token,
    })
  return outcome
}

export function linksOf(context: AppContext, principal: Principal, page: number): Promise<Page<TalliedLink>> {
  return listPaymentLinks(context, principal, { page, perPage: linksPerPage })
}

/** A link with its latest payments, or undefined when this merchant and mode have no such link. */
export async function linkViewOf(
  context: AppContext,
  principal: Principal,
  token: string,
): Promise<{ link: TalliedLink; payments: Page<Operation> } | undefined> {
  try {
    const link = await paymentLinkDetails(context, principal, token)
    const payments = await paymentLinkPayments(context, principal, token, { page: 1, perPage: 100 })
    return { link, payments }
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return undefined
    throw error
  }
}
