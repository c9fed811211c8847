import { createHash } from 'node:crypto'
import type { Mode, OperationKind } from './kinds.ts'
import type { Currency } from './money.ts'
import type { Metadata } from './operation.ts'

/** CONTRACT.md, Payment links: what a link is, as stored. */
export interface PaymentLink {
  token: string
  merchantId: string
  mode: Mode
  merchantReference: string
  requestHash: string
  description: string
  country: string
  currency: Currency
  /** A fixed amount, or a range the customer types an amount in: exactly one of the two. */
  amountMinor: number | null
  range: { minMinor: number; maxMinor: number } | null
  channels: string[]
  reusable: boolean
  expiresAtUs: number
  callbackUrl: string | null
  succeededUrl: string | null
  metadata?: Metadata
  createdAtUs: number
  closedAtUs: number | null
}

/** What its collects add up to: read from them, never stored. */
export interface PaymentLinkTally {
  paymentCount: number
  collectedMinor: number
}

export const paymentLinkStatuses = ['active', 'completed', 'expired', 'closed'] as const
export type PaymentLinkStatus = (typeof paymentLinkStatuses)[number]

/**
 * A closed link stays closed; a single-use link with a succeeded payment is completed; past its
 * expiry it is expired; otherwise it takes payments.
 */
export function paymentLinkStatus(
  link: PaymentLink,
  tally: PaymentLinkTally,
  nowUs: number,
): PaymentLinkStatus {
  if (link.closedAtUs !== null) return 'closed'
  if (!link.reusable && tally.paymentCount > 0) return 'completed'
  if (nowUs >= link.expiresAtUs) return 'expired'
  return 'active'
}

/** The amount a customer pays: the link's own, or theirs when it is within the link's range. */
export function amountToPay(
  link: PaymentLink,
  typedMinor: number | undefined,
): { amountMinor: number } | { outOfRange: { minMinor: number; maxMinor: number } } | { missing: true } {
  if (link.amountMinor !== null) return { amountMinor: link.amountMinor }
  if (typedMinor === undefined) return { missing: true }
  const range = link.range!
  if (typedMinor < range.minMinor || typedMinor > range.maxMinor) return { outOfRange: range }
  return { amountMinor: typedMinor }
}

/** The longest merchantReference (CONTRACT.md, Errors: bounds), in characters. */
const longestReference = 64
/** How much of a link's reference a shortened collect reference keeps, and its digest's length. */
const keptCharacters = 45
const digestCharacters = 10

/**
 * The merchantReference of a link's nth collect: `<link reference>-<n>` when that fits in 64
 * characters. Otherwise the link's first 45 characters, a hyphen, 10 hexadecimal characters
 * digested from its whole reference (two long references alike at their start stay apart), and
 * `-<n>`. Characters are counted as the API counts them, by code point, so none is cut in half.
 */
export function linkPaymentReference(link: PaymentLink, number: number): string {
  const whole = `${link.merchantReference}-${number}`
  if ([...whole].length <= longestReference) return whole
  const digest = createHash('sha256').update(link.merchantReference).digest('hex').slice(0, digestCharacters)
  const suffix = `-${digest}-${number}`
  const kept = Math.min(keptCharacters, longestReference - suffix.length)
  return `${[...link.merchantReference].slice(0, kept).join('')}${suffix}`
}

/** Expiry: seven days when not given, ninety at most. */
export const defaultLinkLifetimeUs = 7 * 24 * 3600 * 1_000_000
export const longestLinkLifetimeUs = 90 * 24 * 3600 * 1_000_000

/** The kind of operation a payment through a link is, whose records name the link. */
export const linkPaymentKind = 'collect' as const satisfies OperationKind
