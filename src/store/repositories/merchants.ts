import type { RepositoryScope } from './executor.ts'

/** Merchants, and the one-time markers of the service (the demo merchant's creation). */

export type MerchantStatus = 'active' | 'suspended'

export interface MerchantSummary {
  id: string
  name: string
  status: MerchantStatus
  createdAtUs: number
  activeKeys: { mode: 'sandbox' | 'live'; apiKey: string }[]
}

export interface MerchantsRepository {
  insert(merchant: { id: string; name: string; createdAtUs: number }): Promise<void>
  exists(merchantId: string): Promise<boolean>
  /** The merchant's name, when it exists. */
  nameOf(merchantId: string): Promise<string | undefined>
  any(): Promise<boolean>
  list(): Promise<MerchantSummary[]>
  /** False when no merchant has this id. */
  setStatus(merchantId: string, status: MerchantStatus): Promise<boolean>
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
async function listMerchants(db: RepositoryScope['db']): Promise<MerchantSummary[]> {
  const merchants = await db.selectFrom('merchants').selectAll().orderBy('created_at_us').execute()
  const keys = await db
    .selectFrom('api_keys')
    .select(['merchant_id', 'mode', 'api_key'])
    .where('revoked_at_us', 'is', null)
    .orderBy('created_at_us')
    .execute()
  return merchants.map((merchant) => ({
    id: merchant.id,
    name: merchant.name,
    status: merchant.status,
    createdAtUs: merchant.created_at_us,
    activeKeys: keys
      .filter((key) => key.merchant_id === merchant.id)
      .map((key) => ({ mode: key.mode, apiKey: key.api_key })),
  }))
}
