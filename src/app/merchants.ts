import { newKeyPair, newMerchantId, newWebhookSecret } from '../domain/identifiers.ts'
import type { Mode } from '../domain/kinds.ts'
import { ApiError } from '../errors.ts'
import type { Credential } from '../store/repositories/api-keys.ts'
import type { MerchantStatus, MerchantSummary } from '../store/repositories/merchants.ts'
import type { Repositories } from '../store/store.ts'
import { auditMerchantChange, type PlatformActor } from './console/platform-audit.ts'
import type { AppContext } from './context.ts'
import { hashSecret, secretMatchesCredential } from './credentials.ts'
import { type Actor, audit } from './dashboard/audit.ts'
import { openSandboxBalances } from './opening-balances.ts'
import type { Principal } from './principal.ts'

export type { MerchantSummary, Principal }

export interface KeyPair {
  apiKey: string
  secretKey: string
}

/** What a mode is issued: its key pair and its webhook secret. */
export interface ModeCredentials extends KeyPair {
  webhookSecret: string
}

/** Everything issued with a new merchant; the secrets are shown this once and never again. */
export interface IssuedMerchant {
  id: string
  name: string
  sandbox: ModeCredentials
  live: ModeCredentials
  /** The sandbox webhook secret again, for the scripts written when there was only one. */
  webhookSecret: string
}

export async function createMerchant(context: AppContext, name: string): Promise<IssuedMerchant> {
  const id = newMerchantId()
  const now = context.clock.nowUs()
  const issued = await context.store.transaction(async (tx) => {
    await tx.merchants.insert({ id, name, createdAtUs: now })
    const sandbox = await issueModeCredentials(context, tx, id, 'sandbox', now)
    const live = await issueModeCredentials(context, tx, id, 'live', now)
    return { id, name, sandbox, live, webhookSecret: sandbox.webhookSecret }
  })
  await openSandboxBalances(context, id)
  return issued
}

async function issueModeCredentials(
  context: AppContext,
  tx: Repositories,
  merchantId: string,
  mode: Mode,
  now: number,
): Promise<ModeCredentials> {
  const pair = await issueKeyPair(tx, merchantId, mode, now)
  const webhookSecret = newWebhookSecret()
  await tx.webhookSecrets.insert(merchantId, mode, context.secrets.seal(webhookSecret), now)
  return { ...pair, webhookSecret }
}

async function issueKeyPair(tx: Repositories, merchantId: string, mode: Mode, now: number): Promise<KeyPair> {
  const pair = newKeyPair(mode)
  await tx.apiKeys.insertKeyPair(
    merchantId,
    { mode, apiKey: pair.apiKey, secretHash: hashSecret(pair.secretKey) },
    now,
  )
  return pair
}

export function listMerchants(context: AppContext): Promise<MerchantSummary[]> {
  return context.store.merchants.list()
}

export function merchantExists(context: AppContext, merchantId: string): Promise<boolean> {
  return context.store.merchants.exists(merchantId)
}

/**
 * Suspends or activates a merchant; false when no merchant has this id. With an actor (the CLI, the
 * platform's console), audited in the same transaction as `merchant.suspended` or
 * `merchant.activated`, with the status before and after.
 */
export async function setMerchantStatus(
  context: AppContext,
  merchantId: string,
  status: MerchantStatus,
  actor?: PlatformActor,
): Promise<boolean> {
  const changed = await context.store.transaction(async (tx) => {
    const before = actor ? await tx.merchants.statusOf(merchantId) : undefined
    if (!(await tx.merchants.setStatus(merchantId, status))) return false
    if (actor) {
      const done = status === 'suspended' ? 'suspended' : 'activated'
      const change = {
        merchantId,
        action: `merchant.${done}`,
        target: merchantId,
        before: { status: before },
        after: { status },
      }
      await auditMerchantChange(context, actor, change, done, tx)
    }
    return true
  })
  context.credentials.forgetAll()
  context.merchantControls.forgetAll()
  return changed
}

/** The api-key as pages and the audit log name it: its prefix and last four characters, never whole. */
export function maskedApiKey(apiKey: string): string {
  const prefix = /^[a-z]+_[a-z]+_/.exec(apiKey)?.[0] ?? ''
  return `${prefix}…${apiKey.slice(-4)}`
}

/**
 * Issues a new pair for the mode and revokes the pairs it replaces. Undefined for an unknown
 * merchant. With an actor, the change is audited in the same transaction: `api_key.created` when
 * the mode had no active pair, `api_key.rotated` otherwise (the masked keys, never the secret).
 */
export async function rotateKeyPair(
  context: AppContext,
  merchantId: string,
  mode: Mode,
  actor?: Actor,
): Promise<KeyPair | undefined> {
  const now = context.clock.nowUs()
  const issued = await context.store.transaction(async (tx) => {
    if (!(await tx.merchants.exists(merchantId))) return undefined
    const replaced = actor
      ? (await tx.apiKeys.listKeys(merchantId, mode)).filter((key) => key.revokedAtUs === null)
      : []
    await tx.apiKeys.revokeKeyPairs(merchantId, mode, now)
    const pair = await issueKeyPair(tx, merchantId, mode, now)
    if (actor) {
      await audit(
        context,
        actor,
        {
          merchantId,
          mode,
          action: replaced.length > 0 ? 'api_key.rotated' : 'api_key.created',
          target: maskedApiKey(pair.apiKey),
          ...(replaced.length > 0
            ? { before: { revoked: replaced.map((key) => maskedApiKey(key.apiKey)) } }
            : {}),
          after: { apiKey: maskedApiKey(pair.apiKey) },
        },
        tx,
      )
    }
    return pair
  })
  context.credentials.forgetAll()
  return issued
}

/** Returns false when the key is unknown or already revoked. With an actor, an `api_key.revoked` audit row. */
export async function revokeApiKey(context: AppContext, apiKey: string, actor?: Actor): Promise<boolean> {
  const revoked = await context.store.transaction(async (tx) => {
    const credential = actor ? await tx.apiKeys.findCredential(apiKey) : undefined
    if (!(await tx.apiKeys.revokeKey(apiKey, context.clock.nowUs()))) return false
    if (actor && credential) {
      const change = {
        merchantId: credential.merchantId,
        mode: credential.mode,
        action: 'api_key.revoked',
        target: maskedApiKey(apiKey),
        before: { status: 'active' },
        after: { status: 'revoked' },
      }
      await audit(context, actor, change, tx)
    }
    return true
  })
  context.credentials.forgetAll()
  return revoked
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
  const credential = await context.credentials.read(apiKey, () =>
    context.store.apiKeys.findCredential(apiKey),
  )
  if (!credential || credential.revoked || !secretMatchesCredential(secretKey, credential)) {
    throw new ApiError('invalid_credentials')
  }
  if (credential.merchantStatus !== 'active') throw new ApiError('merchant_suspended')
  return principalOf(credential)
}

/**
 * The principal these credentials prove from what the credential cache holds now, without reading
 * the store or waiting: undefined when it holds nothing fresh for the key, or when they would not
 * authenticate. The HTTP edge attributes a request to its merchant with it before admission;
 * `authenticate` still decides.
 */
export function principalProvenFromCache(
  context: AppContext,
  apiKey: string,
  secretKey: string,
): Principal | undefined {
  const credential = context.credentials.peek(apiKey)
  if (!credential || credential.revoked || credential.merchantStatus !== 'active') return undefined
  if (!secretMatchesCredential(secretKey, credential)) return undefined
  return principalOf(credential)
}

function principalOf(credential: Credential): Principal {
  const { merchantId, merchantName, mode, controls } = credential
  return { merchantId, merchantName, mode, controls }
}
