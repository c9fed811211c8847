import type { RepositoryScope } from './executor.ts'

/** Merchants' webhook secrets, sealed (they must be readable to sign, so they cannot be hashed). */

export interface WebhookSecretsRepository {
  insert(merchantId: string, sealed: string, nowUs: number): Promise<void>
  /** The current secret keeps signing until `untilUs`, beside the one that replaces it. */
  retire(merchantId: string, untilUs: number): Promise<void>
  /** The sealed secrets that sign at `nowUs`, newest first. */
  signing(merchantId: string, nowUs: number): Promise<string[]>
}

export function webhookSecretsRepository({ db }: RepositoryScope): WebhookSecretsRepository {
  return {
    async insert(merchantId, sealed, nowUs) {
      await db
        .insertInto('webhook_secrets')
        .values({ merchant_id: merchantId, secret_encrypted: sealed, created_at_us: nowUs })
        .execute()
    },
    async retire(merchantId, untilUs) {
      await db
        .updateTable('webhook_secrets')
        .set({ expires_at_us: untilUs })
        .where('merchant_id', '=', merchantId)
        .where('expires_at_us', 'is', null)
        .execute()
    },
    async signing(merchantId, nowUs) {
      const rows = await db
        .selectFrom('webhook_secrets')
        .select('secret_encrypted')
        .where('merchant_id', '=', merchantId)
        .where((eb) => eb.or([eb('expires_at_us', 'is', null), eb('expires_at_us', '>', nowUs)]))
        .orderBy('id', 'desc')
        .execute()
      return rows.map((row) => row.secret_encrypted)
    },
  }
}
