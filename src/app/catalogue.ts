import type { SideKind } from '../domain/kinds.ts'
import type { Currency } from '../domain/money.ts'
import type { FeeRule } from '../domain/pricing.ts'
import type { Executor } from '../store/store.ts'

export interface ChannelRoute {
  channel: string
  channelName: string
  country: string
  kind: SideKind
  currency: Currency
  minAmountMinor: number
  maxAmountMinor: number
}

export async function findRoute(
  db: Executor,
  channel: string,
  country: string,
  kind: SideKind,
): Promise<ChannelRoute | undefined> {
  const row = await db
    .selectFrom('channel_routes')
    .selectAll()
    .where('channel', '=', channel)
    .where('country', '=', country)
    .where('kind', '=', kind)
    .executeTakeFirst()
  return row && toRoute(row)
}

export async function listRoutes(db: Executor): Promise<ChannelRoute[]> {
  const rows = await db
    .selectFrom('channel_routes')
    .selectAll()
    .orderBy('channel')
    .orderBy('country')
    .orderBy('kind')
    .execute()
  return rows.map(toRoute)
}

function toRoute(row: {
  channel: string
  channel_name: string
  country: string
  kind: string
  currency: string
  min_amount_minor: number
  max_amount_minor: number
}): ChannelRoute {
  return {
    channel: row.channel,
    channelName: row.channel_name,
    country: row.country,
    kind: row.kind as SideKind,
    currency: row.currency as Currency,
    minAmountMinor: row.min_amount_minor,
    maxAmountMinor: row.max_amount_minor,
  }
}

export interface FeeRow extends FeeRule {
  merchantId: string
  kind: string
  channel: string
  country: string
}

/**
 * The most specific fee row wins: the merchant's own over the default, then a named
 * channel over '*', then a named country over '*'.
 */
export async function findFeeRule(
  db: Executor,
  merchantId: string,
  kind: SideKind,
  channel: string,
  country: string,
): Promise<FeeRule | undefined> {
  const rows = await db
    .selectFrom('fee_schedule')
    .selectAll()
    .where('merchant_id', 'in', [merchantId, '*'])
    .where('kind', '=', kind)
    .where('channel', 'in', [channel, '*'])
    .where('country', 'in', [country, '*'])
    .execute()
  const specificity = (row: (typeof rows)[number]) =>
    (row.merchant_id !== '*' ? 4 : 0) + (row.channel !== '*' ? 2 : 0) + (row.country !== '*' ? 1 : 0)
  const best = rows.sort((a, b) => specificity(b) - specificity(a))[0]
  return best && toFeeRow(best)
}

export async function listFeeRows(db: Executor, merchantId?: string): Promise<FeeRow[]> {
  let query = db.selectFrom('fee_schedule').selectAll()
  if (merchantId) query = query.where('merchant_id', 'in', [merchantId, '*'])
  const rows = await query
    .orderBy('merchant_id')
    .orderBy('kind')
    .orderBy('channel')
    .orderBy('country')
    .execute()
  return rows.map(toFeeRow)
}

export async function setFeeRow(db: Executor, row: FeeRow): Promise<void> {
  const values = {
    merchant_id: row.merchantId,
    kind: row.kind,
    channel: row.channel,
    country: row.country,
    percentage_milli: row.percentageMilli,
    additional_fee_minor: row.additionalFeeMinor,
    supported_by_account: row.supportedByAccount ? 1 : 0,
  }
  await db
    .insertInto('fee_schedule')
    .values(values)
    .onConflict((conflict) =>
      conflict.columns(['merchant_id', 'kind', 'channel', 'country']).doUpdateSet({
        percentage_milli: values.percentage_milli,
        additional_fee_minor: values.additional_fee_minor,
        supported_by_account: values.supported_by_account,
      }),
    )
    .execute()
}

function toFeeRow(row: {
  merchant_id: string
  kind: string
  channel: string
  country: string
  percentage_milli: number
  additional_fee_minor: number
  supported_by_account: number
}): FeeRow {
  return {
    merchantId: row.merchant_id,
    kind: row.kind,
    channel: row.channel,
    country: row.country,
    percentageMilli: row.percentage_milli,
    additionalFeeMinor: row.additional_fee_minor,
    supportedByAccount: row.supported_by_account === 1,
  }
}
