import type { SideKind } from '../../domain/kinds.ts'
import type { Currency } from '../../domain/money.ts'
import type { FeeRule } from '../../domain/pricing.ts'
import type { Executor, RepositoryScope } from './executor.ts'

/** The channel catalogue (channel, country, kind, limits) and the fee schedule. */
export interface CatalogueRepository {
  findRoute(channel: string, country: string, kind: SideKind): Promise<ChannelRoute | undefined>
  listRoutes(): Promise<ChannelRoute[]>
  /** The channel's display name, e.g. "Orange Money". */
  channelName(channel: string): Promise<string | undefined>
  /** The most specific fee row: the merchant's own over the default, a named channel over '*', a named country over '*'. */
  findFeeRule(
    merchantId: string,
    kind: SideKind,
    channel: string,
    country: string,
  ): Promise<FeeRule | undefined>
  /** The default rows, and the merchant's own when one is given. */
  listFeeRows(merchantId?: string): Promise<FeeRow[]>
  setFeeRow(row: FeeRow): Promise<void>
}

export function catalogueRepository({ db }: RepositoryScope): CatalogueRepository {
  return {
    findRoute: (channel, country, kind) => findRoute(db, channel, country, kind),
    listRoutes: () => listRoutes(db),
    async channelName(channel) {
      const route = await db
        .selectFrom('channel_routes')
        .select('channel_name')
        .where('channel', '=', channel)
        .limit(1)
        .executeTakeFirst()
      return route?.channel_name
    },
    findFeeRule: (merchantId, kind, channel, country) => findFeeRule(db, merchantId, kind, channel, country),
    listFeeRows: (merchantId) => listFeeRows(db, merchantId),
    setFeeRow: (row) => setFeeRow(db, row),
  }
}

export interface ChannelRoute {
  channel: string
  channelName: string
  country: string
  kind: SideKind
  currency: Currency
  minAmountMinor: number
  maxAmountMinor: number
}

async function findRoute(
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

async function listRoutes(db: Executor): Promise<ChannelRoute[]> {
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

async function findFeeRule(
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

async function listFeeRows(db: Executor, merchantId?: string): Promise<FeeRow[]> {
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

async function setFeeRow(db: Executor, row: FeeRow): Promise<void> {
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
