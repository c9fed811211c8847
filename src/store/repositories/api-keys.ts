import type { Mode } from '../../domain/kinds.ts'
import type { MerchantControls } from '../../domain/merchant-controls.ts'
import type { Executor, RepositoryScope } from './executor.ts'
import { controlsOf, type MerchantStatus } from './merchants.ts'

/** Merchants' key pairs: the api-key in clear, the secret-key as a hash. */

export interface NewKeyPair {
  mode: Mode
  apiKey: string
  secretHash: string
}

/** What authenticating a request needs to know about an api-key. */
export interface Credential {
  secretHash: string
  mode: Mode
  revoked: boolean
  merchantId: string
  merchantName: string
  merchantStatus: MerchantStatus
  /** The platform's controls of the merchant in the key's mode: kept with the key, read with it. */
  controls: MerchantControls
}

/** A key pair as its merchant's developers see it listed: never its secret (only its hash is kept). */
export interface ApiKeyRow {
  apiKey: string
  mode: Mode
  createdAtUs: number
  revokedAtUs: number | null
}

export interface ApiKeysRepository {
  /** The merchant's key pairs of the mode, newest first, revoked ones included. */
  listKeys(merchantId: string, mode: Mode): Promise<ApiKeyRow[]>
  insertKeyPair(merchantId: string, pair: NewKeyPair, nowUs: number): Promise<void>
  /** Revokes every active pair of the merchant in the mode. */
  revokeKeyPairs(merchantId: string, mode: Mode, nowUs: number): Promise<void>
  /** False when the key is unknown or already revoked. */
  revokeKey(apiKey: string, nowUs: number): Promise<boolean>
  findCredential(apiKey: string): Promise<Credential | undefined>
}

export function apiKeysRepository({ db }: RepositoryScope): ApiKeysRepository {
  return {
    listKeys: (merchantId, mode) => listKeys(db, merchantId, mode),
    async insertKeyPair(merchantId, pair, nowUs) {
      await db
        .insertInto('api_keys')
        .values({
          api_key: pair.apiKey,
          merchant_id: merchantId,
          mode: pair.mode,
          secret_hash: pair.secretHash,
          created_at_us: nowUs,
          revoked_at_us: null,
        })
        .execute()
    },
    async revokeKeyPairs(merchantId, mode, nowUs) {
      await db
        .updateTable('api_keys')
        .set({ revoked_at_us: nowUs })
        .where('merchant_id', '=', merchantId)
        .where('mode', '=', mode)
        .where('revoked_at_us', 'is', null)
        .execute()
    },
    async revokeKey(apiKey, nowUs) {
      const result = await db
        .updateTable('api_keys')
        .set({ revoked_at_us: nowUs })
        .where('api_key', '=', apiKey)
        .where('revoked_at_us', 'is', null)
        .executeTakeFirst()
      return result.numUpdatedRows > 0n
    },
    findCredential: (apiKey) => findCredential(db, apiKey),
  }
}

async function listKeys(db: Executor, merchantId: string, mode: Mode): Promise<ApiKeyRow[]> {
  const rows = await db
    .selectFrom('api_keys')
    .select(['api_key', 'mode', 'created_at_us', 'revoked_at_us'])
    .where('merchant_id', '=', merchantId)
    .where('mode', '=', mode)
    .orderBy('created_at_us', 'desc')
    .orderBy('api_key')
    .execute()
  return rows.map((row) => ({
    apiKey: row.api_key,
    mode: row.mode,
    createdAtUs: row.created_at_us,
    revokedAtUs: row.revoked_at_us,
  }))
}

async function findCredential(db: Executor, apiKey: string): Promise<Credential | undefined> {
  // One statement: the key, its merchant, and the merchant's limits in the key's mode (a row each).
  const rows = await db
    .selectFrom('api_keys')
    .innerJoin('merchants', 'merchants.id', 'api_keys.merchant_id')
    .leftJoin('merchant_limits', (join) =>
      join
        .onRef('merchant_limits.merchant_id', '=', 'api_keys.merchant_id')
        .onRef('merchant_limits.mode', '=', 'api_keys.mode'),
    )
    .select([
      'api_keys.secret_hash',
      'api_keys.mode',
      'api_keys.revoked_at_us',
      'merchants.id',
      'merchants.name',
      'merchants.status',
      'merchants.payouts_paused_at_us',
      'merchants.payouts_paused_reason',
      'merchant_limits.currency',
      'merchant_limits.max_amount_minor',
      'merchant_limits.daily_payout_limit_minor',
    ])
    .where('api_keys.api_key', '=', apiKey)
    .execute()
  const [row] = rows
  if (!row) return undefined
  const limits = rows.flatMap(({ currency, max_amount_minor, daily_payout_limit_minor }) =>
    currency === null ? [] : [{ currency, max_amount_minor, daily_payout_limit_minor }],
  )
  return {
    secretHash: row.secret_hash,
    mode: row.mode,
    revoked: row.revoked_at_us !== null,
    merchantId: row.id,
    merchantName: row.name,
    merchantStatus: row.status,
    controls: controlsOf(row, limits),
  }
}
