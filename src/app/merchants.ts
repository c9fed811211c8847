import type { Transaction } from 'kysely'
import { newKeyPair, newMerchantId, newWebhookSecret } from '../domain/identifiers.ts'
import { type Mode, modes } from '../domain/kinds.ts'
import { ApiError } from '../errors.ts'
import type { Database } from '../store/schema.ts'
import type { Executor } from '../store/store.ts'
import type { AppContext } from './context.ts'
import { hashSecret, secretMatches } from './credentials.ts'
import { openSandboxBalances } from './opening-balances.ts'

export interface KeyPair {
  apiKey: string
  secretKey: string
}

/** Everything issued with a new merchant; the secrets are shown this once and never again. */
export interface IssuedMerchant {
  id: string
  name: string
  sandbox: KeyPair
  live: KeyPair
  webhookSecret: string
}

/** Who is calling: resolved from the two headers on every API request. */
export interface Principal {
  merchantId: string
  merchantName: string
  mode: Mode
}

export async function createMerchant(context: AppContext, name: string): Promise<IssuedMerchant> {
  const id = newMerchantId()
  const webhookSecret = newWebhookSecret()
  const now = context.clock.nowMicros()
  const issued = await context.store.transaction(async (trx) => {
    await trx.insertInto('merchants').values({ id, name, status: 'active', created_at_us: now }).execute()
    const sandbox = await issueKeyPair(trx, id, 'sandbox', now)
    const live = await issueKeyPair(trx, id, 'live', now)
    await trx
      .insertInto('webhook_secrets')
      .values({ merchant_id: id, secret_encrypted: context.secrets.seal(webhookSecret), created_at_us: now })
      .execute()
    return { id, name, sandbox, live, webhookSecret }
  })
  await openSandboxBalances(context, id)
  return issued
}

async function issueKeyPair(
  trx: Transaction<Database>,
  merchantId: string,
  mode: Mode,
  now: number,
): Promise<KeyPair> {
  const pair = newKeyPair(mode)
  await trx
    .insertInto('api_keys')
    .values({
      api_key: pair.apiKey,
      merchant_id: merchantId,
      mode,
      secret_hash: hashSecret(pair.secretKey),
      created_at_us: now,
      revoked_at_us: null,
    })
    .execute()
  return pair
}

export interface MerchantSummary {
  id: string
  name: string
  status: 'active' | 'suspended'
  createdAtUs: number
  activeKeys: { mode: Mode; apiKey: string }[]
}

export async function listMerchants(context: AppContext): Promise<MerchantSummary[]> {
  const merchants = await context.store.db
    .selectFrom('merchants')
    .selectAll()
    .orderBy('created_at_us')
    .execute()
  const keys = await context.store.db
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

/** Returns false when no merchant has this id. */
export async function setMerchantStatus(
  context: AppContext,
  merchantId: string,
  status: 'active' | 'suspended',
): Promise<boolean> {
  const result = await context.store.db
    .updateTable('merchants')
    .set({ status })
    .where('id', '=', merchantId)
    .executeTakeFirst()
  return result.numUpdatedRows > 0n
}

/** Issues a new pair for the mode and revokes the pairs it replaces. Undefined for an unknown merchant. */
export async function rotateKeyPair(
  context: AppContext,
  merchantId: string,
  mode: Mode,
): Promise<KeyPair | undefined> {
  const now = context.clock.nowMicros()
  return context.store.transaction(async (trx) => {
    if (!(await merchantExists(trx, merchantId))) return undefined
    await trx
      .updateTable('api_keys')
      .set({ revoked_at_us: now })
      .where('merchant_id', '=', merchantId)
      .where('mode', '=', mode)
      .where('revoked_at_us', 'is', null)
      .execute()
    return issueKeyPair(trx, merchantId, mode, now)
  })
}

/** Returns false when the key is unknown or already revoked. */
export async function revokeApiKey(context: AppContext, apiKey: string): Promise<boolean> {
  const result = await context.store.db
    .updateTable('api_keys')
    .set({ revoked_at_us: context.clock.nowMicros() })
    .where('api_key', '=', apiKey)
    .where('revoked_at_us', 'is', null)
    .executeTakeFirst()
  return result.numUpdatedRows > 0n
}

/**
 * Unknown key, wrong secret and revoked key all answer the same, so a caller cannot probe
 * which api keys exist. The mode comes from the key pair, never from the request.
 */
export async function authenticate(
  context: AppContext,
  apiKey: string | undefined,
  secretKey: string | undefined,
): Promise<Principal> {
  if (!apiKey || !secretKey) throw new ApiError('missing_credentials')
  const row = await context.store.db
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
  if (!row || row.revoked_at_us !== null || !secretMatches(secretKey, row.secret_hash)) {
    throw new ApiError('invalid_credentials')
  }
  if (row.status !== 'active') throw new ApiError('merchant_suspended')
  return { merchantId: row.id, merchantName: row.name, mode: row.mode }
}

export async function merchantExists(db: Executor, merchantId: string): Promise<boolean> {
  const row = await db.selectFrom('merchants').select('id').where('id', '=', merchantId).executeTakeFirst()
  return row !== undefined
}

export function isMode(value: string): value is Mode {
  return (modes as readonly string[]).includes(value)
}
