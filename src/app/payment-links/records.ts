import { formatTimestamp } from '../../domain/clock.ts'
import { toMajorUnits } from '../../domain/money.ts'
import { paymentLinkStatus } from '../../domain/payment-links.ts'
import type { TalliedLink } from '../../store/repositories/payment-links.ts'
import type { AppContext } from '../context.ts'

/** The page where customers pay the link, and its QR code: both on PUBLIC_BASE_URL. */
export function linkUrls(context: AppContext, token: string): { url: string; qrCodeUrl: string } {
  const base = context.config.publicBaseUrl.replace(/\/+$/, '')
  return { url: `${base}/pay/${token}`, qrCodeUrl: `${base}/pay/${token}/qr.svg` }
}

/** CONTRACT.md, Payment links: the record, built field by field in its published order. */
export function paymentLinkRecord(
  context: AppContext,
  { link, tally }: TalliedLink,
): Record<string, unknown> {
  const major = (minor: number) => toMajorUnits(minor, link.currency)
  const { url, qrCodeUrl } = linkUrls(context, link.token)
  const record: Record<string, unknown> = {
    token: link.token,
    url,
    qrCodeUrl,
    status: paymentLinkStatus(link, tally, context.clock.nowUs()),
    description: link.description,
  }
  if (link.amountMinor !== null) record.amount = major(link.amountMinor)
  if (link.range) record.amountRange = { min: major(link.range.minMinor), max: major(link.range.maxMinor) }
  record.currency = link.currency
  record.country = link.country
  record.channels = link.channels
  record.reusable = link.reusable
  record.expiresAt = formatTimestamp(link.expiresAtUs)
  record.paymentCount = tally.paymentCount
  record.collectedAmount = major(tally.collectedMinor)
  record.merchantReference = link.merchantReference
  record.initiationDate = formatTimestamp(link.createdAtUs)
  if (link.closedAtUs !== null) record.closedAt = formatTimestamp(link.closedAtUs)
  if (link.callbackUrl) record.callbackUrl = link.callbackUrl
  if (link.succeededUrl) record.succeededUrl = link.succeededUrl
  if (link.metadata) record.metadata = link.metadata
  return record
}
