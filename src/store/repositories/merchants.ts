import type { Mode } from '../../domain/kinds.ts'
import type {
  CurrencyLimits,
  LimitRow,
  MerchantControls,
  PayoutsPause,
} from '../../domain/merchant-controls.ts'
import type { RepositoryScope } from './executor.ts'

/** Merchants, and the one-time markers of the service (the demo merchant's creation). */

export type MerchantStatus = 'active' | 'suspended'

export interface MerchantSummary {
  id: string
  name: string
  status: MerchantStatus
  createdAtUs: number
  activeKeys: { mode: 'sandbox' | 'live'; apiKey: string }[]
  payoutsPaused: PayoutsPause | null
  limits: LimitRow[]
}

export interface MerchantsRepository {
  insert(merchant: { id: string; name: string; createdAtUs: number }): Promise<void>
  exists(merchantId: string): Promise<boolean>
  /** The merchant's name, when it exists. */
  nameOf(merchantId: string): Promise<string | undefined>
  any(): Promise<boolean>
  list(): Promise<MerchantSummary[]>
  /** The merchant's status, when it exists. */
  statusOf(merchantId: string): Promise<MerchantStatus | undefined>
  /** False when no merchant has this id. */
  setStatus(merchantId: string, status: MerchantStatus): Promise<boolean>
  /** The platform's controls of the merchant in the mode; undefined for an unknown merchant. */
  controls(merchantId: string, mode: Mode): Promise<MerchantControls | undefined>
  /** Every limit of the merchant, both modes. */
  limits(merchantId: string): Promise<LimitRow[]>
  /** Pauses (a pause) or resumes (null) the merchant's payouts; false when no merchant has this id. */
  setPayoutsPaused(merchantId: string, pause: PayoutsPause | null): Promise<boolean>
  /** Sets one mode and currency's limits; both null removes the row. */
  setLimits(merchantId: string, mode: Mode, currency: string, limits: CurrencyLimits): Promise<void>
  /** Claims a one-time marker; false when someone already has. */
  claimMarker(key: string, value: string): Promise<boolean>
}

export function merchantsRepository({ db }: RepositoryScope): MerchantsRepository {
  return {
    async insert(merchant) {
      await db
        .insertInto('merchants')
        .values({
          id: merchant.id,
          name: merchant.name,
          status: 'active',
          created_at_us: merchant.createdAtUs,
        })
        .execute()
    },
    async exists(merchantId) {
      const row = await db
        .selectFrom('merchants')
        .select('id')
        .where('id', '=', merchantId)
        .executeTakeFirst()
      return row !== undefined
    },
    async statusOf(merchantId) {
      const row = await db
        .selectFrom('merchants')
        .select('status')
        .where('id', '=', merchantId)
        .executeTakeFirst()
      return row?.status
    },
    async nameOf(merchantId) {
      const row = await db
        .selectFrom('merchants')
        .select('name')
        .where('id', '=', merchantId)
        .executeTakeFirst()
      return row?.name
    },
    async any() {
      return (await db.selectFrom('merchants').select('id').limit(1).executeTakeFirst()) !== undefined
    },
    list: () => listMerchants(db),
    async setStatus(merchantId, status) {
      const result = await db
        .updateTable('merchants')
        .set({ status })
        .where('id', '=', merchantId)
        .executeTakeFirst()
      return result.numUpdatedRows > 0n
    },
    controls: (merchantId, mode) => readControls(db, merchantId, mode),
    limits: async (merchantId) =>
      (await limitsOf(db, [merchantId])).map(({ merchantId: _merchantId, ...limit }) => limit),
    setPayoutsPaused: (merchantId, pause) => setPayoutsPaused(db, merchantId, pause),
    setLimits: (merchantId, mode, currency, limits) =>
      setLimits(db, { merchantId, mode, currency, ...limits }),
    async claimMarker(key, value) {
      const claimed = await db
        .insertInto('settings')
        .values({ key, value })
        .onConflict((conflict) => conflict.column('key').doNothing())
        .executeTakeFirst()
      return claimed.numInsertedOrUpdatedRows !== 0n
    },
  }
}
/** The columns of a merchant's pause and its limits' rows in one mode, as the controls read on the hot path. */
export function controlsOf(
  merchant: { payouts_paused_at_us: number | null; payouts_paused_reason: string | null },
  limits: readonly {
    currency: string
    max_amount_minor: number | null
    daily_payout_limit_minor: number | null
  }[],
): MerchantControls {
  return {
    payoutsPaused: pauseOf(merchant),
    limits: Object.fromEntries(
      limits.map((row) => [
        row.currency,
        { maxAmountMinor: row.max_amount_minor, dailyPayoutLimitMinor: row.daily_payout_limit_minor },
      ]),
    ),
  }
}

function pauseOf(merchant: {
  payouts_paused_at_us: number | null
  payouts_paused_reason: string | null
}): PayoutsPause | null {
  return merchant.payouts_paused_at_us === null
    ? null
    : { atUs: merchant.payouts_paused_at_us, reason: merchant.payouts_paused_reason }
}

async function limitsOf(
  db: RepositoryScope['db'],
  merchantIds: readonly string[],
): Promise<(LimitRow & { merchantId: string })[]> {
  if (merchantIds.length === 0) return []
  const rows = await db
    .selectFrom('merchant_limits')
    .selectAll()
    .where('merchant_id', 'in', merchantIds)
    .orderBy('merchant_id')
    .orderBy('mode')
    .orderBy('currency')
    .execute()
  return rows.map((row) => ({
    merchantId: row.merchant_id,
    mode: row.mode,
    currency: row.currency,
    maxAmountMinor: row.max_amount_minor,
    dailyPayoutLimitMinor: row.daily_payout_limit_minor,
  }))
}

async function listMerchants(db: RepositoryScope['db']): Promise<MerchantSummary[]> {
  const merchants = await db.selectFrom('merchants').selectAll().orderBy('created_at_us').execute()
  const keys = await db
    .selectFrom('api_keys')
    .select(['merchant_id', 'mode', 'api_key'])
    .where('revoked_at_us', 'is', null)
    .orderBy('created_at_us')
    .execute()
  const limits = await limitsOf(
    db,
    merchants.map((merchant) => merchant.id),
  )
  return merchants.map((merchant) => ({
    id: merchant.id,
    name: merchant.name,
    status: merchant.status,
    createdAtUs: merchant.created_at_us,
    activeKeys: keys
      .filter((key) => key.merchant_id === merchant.id)
      .map((key) => ({ mode: key.mode, apiKey: key.api_key })),
    payoutsPaused: pauseOf(merchant),
    limits: limits
      .filter((limit) => limit.merchantId === merchant.id)
      .map(({ merchantId: _merchantId, ...limit }) => limit),
  }))
}

async function readControls(
  db: RepositoryScope['db'],
  merchantId: string,
  mode: Mode,
): Promise<MerchantControls | undefined> {
  const merchant = await db
    .selectFrom('merchants')
    .select(['payouts_paused_at_us', 'payouts_paused_reason'])
    .where('id', '=', merchantId)
    .executeTakeFirst()
  if (!merchant) return undefined
  const limits = await db
    .selectFrom('merchant_limits')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('mode', '=', mode)
    .execute()
  return controlsOf(merchant, limits)
}

async function setPayoutsPaused(
  db: RepositoryScope['db'],
  merchantId: string,
  pause: PayoutsPause | null,
): Promise<boolean> {
  const result = await db
    .updateTable('merchants')
    .set({ payouts_paused_at_us: pause?.atUs ?? null, payouts_paused_reason: pause?.reason ?? null })
    .where('id', '=', merchantId)
    .executeTakeFirst()
  return result.numUpdatedRows > 0n
}

async function setLimits(
  db: RepositoryScope['db'],
  limits: CurrencyLimits & { merchantId: string; mode: Mode; currency: string },
): Promise<void> {
  const { merchantId, mode, currency } = limits
  if (limits.maxAmountMinor === null && limits.dailyPayoutLimitMinor === null) {
    await db
      .deleteFrom('merchant_limits')
      .where('merchant_id', '=', merchantId)
      .where('mode', '=', mode)
      .where('currency', '=', currency)
      .execute()
    return
  }
  const values = {
    max_amount_minor: limits.maxAmountMinor,
    daily_payout_limit_minor: limits.dailyPayoutLimitMinor,
  }
  await db
    .insertInto('merchant_limits')
    .values({ merchant_id: merchantId, mode, currency, ...values })
    .onConflict((conflict) => conflict.columns(['merchant_id', 'mode', 'currency']).doUpdateSet(values))
    .execute()
}
