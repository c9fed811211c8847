import type { Mode } from '../../domain/kinds.ts'
import type { Executor, RepositoryScope } from './executor.ts'
import type { MerchantStatus } from './merchants.ts'

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
    async findCredential(apiKey) {
      const row = await db
        .selectFrom('api_keys')
        .innerJoin('merchants', 'merchants.id', 'api_keys.merchant_id')
        .select([
          'api_keys.secret_hash',
          'api_keys.mode',
          'api_keys.revoked_at_us',
          'merchants.id',
          'merchants.name',
          'merchants.status',
        ])
        .where('api_keys.api_key', '=', apiKey)
        .executeTakeFirst()
      return (
        row && {
          secretHash: row.secret_hash,
          mode: row.mode,
          revoked: row.revoked_at_us !== null,
          merchantId: row.id,
          merchantName: row.name,
          merchantStatus: row.status,
        }
      )
    },
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
