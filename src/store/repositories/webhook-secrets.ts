import type { Mode } from '../../domain/kinds.ts'
import type { Executor, RepositoryScope } from './executor.ts'

/**
 * Merchants' webhook secrets, sealed (they must be readable to sign, so they cannot be hashed).
 * Each mode has its own: a sandbox event never verifies under the live secret.
 */

export interface SealedSigningSecret {
  sealed: string
  /** Null while it is the mode's current secret. */
  expiresAtUs: number | null
}

export interface WebhookSecretsRepository {
  insert(merchantId: string, mode: Mode, sealed: string, nowUs: number): Promise<void>
  /** The mode's current secret keeps signing until `untilUs`, beside the one that replaces it. */
  retire(merchantId: string, mode: Mode, untilUs: number): Promise<void>
  /** The sealed secrets of the mode that sign at `nowUs`, newest first, with when each stops. */
  signing(merchantId: string, mode: Mode, nowUs: number): Promise<SealedSigningSecret[]>
  /** The merchants that have never had a secret of this mode. */
  merchantsLacking(mode: Mode): Promise<string[]>
  /**
   * Inserts the merchant's first secret of the mode, unless it has one by now: false then. The
   * merchant's row is locked first (PostgreSQL), so instances starting together issue one.
   */
  insertFirst(merchantId: string, mode: Mode, sealed: string, nowUs: number): Promise<boolean>
  /** The oldest and the newest sealed secrets (none when nothing is stored): enough to tell the key. */
  sealedSamples(): Promise<string[]>
}

export function webhookSecretsRepository({ db, dialect }: RepositoryScope): WebhookSecretsRepository {
  const insert: WebhookSecretsRepository['insert'] = async (merchantId, mode, sealed, nowUs) => {
    await db
      .insertInto('webhook_secrets')
      .values({ merchant_id: merchantId, mode, secret_encrypted: sealed, created_at_us: nowUs })
      .execute()
  }
  return {
    insert,
    async retire(merchantId, mode, untilUs) {
      await db
        .updateTable('webhook_secrets')
        .set({ expires_at_us: untilUs })
        .where('merchant_id', '=', merchantId)
        .where('mode', '=', mode)
        .where('expires_at_us', 'is', null)
        .execute()
    },
    async signing(merchantId, mode, nowUs) {
      const rows = await db
        .selectFrom('webhook_secrets')
        .select(['secret_encrypted', 'expires_at_us'])
        .where('merchant_id', '=', merchantId)
        .where('mode', '=', mode)
        .where((eb) => eb.or([eb('expires_at_us', 'is', null), eb('expires_at_us', '>', nowUs)]))
        .orderBy('id', 'desc')
        .execute()
      return rows.map((row) => ({ sealed: row.secret_encrypted, expiresAtUs: row.expires_at_us }))
    },
    merchantsLacking: (mode) => merchantsLacking(db, mode),
    async sealedSamples() {
      const sample = (order: 'asc' | 'desc') =>
        db
          .selectFrom('webhook_secrets')
          .select('secret_encrypted')
          .orderBy('id', order)
          .limit(1)
          .executeTakeFirst()
      const found = [await sample('asc'), await sample('desc')]
      return [...new Set(found.flatMap((row) => (row ? [row.secret_encrypted] : [])))]
    },
    async insertFirst(merchantId, mode, sealed, nowUs) {
      const merchant = db.selectFrom('merchants').select('id').where('id', '=', merchantId)
      if (!(await (dialect.supportsRowLocks ? merchant.forUpdate() : merchant).executeTakeFirst()))
        return false
      const existing = await db
        .selectFrom('webhook_secrets')
        .select('id')
        .where('merchant_id', '=', merchantId)
        .where('mode', '=', mode)
        .limit(1)
        .executeTakeFirst()
      if (existing) return false
      await insert(merchantId, mode, sealed, nowUs)
      return true
    },
  }
}

async function merchantsLacking(db: Executor, mode: Mode): Promise<string[]> {
  const rows = await db
    .selectFrom('merchants')
    .select('id')
    .where(({ exists, not, selectFrom }) =>
      not(
        exists(
          selectFrom('webhook_secrets')
            .select('webhook_secrets.id')
            .whereRef('webhook_secrets.merchant_id', '=', 'merchants.id')
            .where('webhook_secrets.mode', '=', mode),
        ),
      ),
    )
    .orderBy('created_at_us')
    .execute()
  return rows.map((row) => row.id)
}
