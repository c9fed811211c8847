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

/** The merchantReference of a link's nth collect. */
export function linkPaymentReference(link: PaymentLink, number: number): string {
  return `${link.merchantReference}-${number}`
}

/** Expiry: seven days when not given, ninety at most. */
export const defaultLinkLifetimeUs = 7 * 24 * 3600 * 1_000_000
export const longestLinkLifetimeUs = 90 * 24 * 3600 * 1_000_000

/** The kind of operation a payment through a link is, whose records name the link. */
export const linkPaymentKind = 'collect' as const satisfies OperationKind
