import { createHash } from 'node:crypto'
import { formatTimestamp } from '../../domain/clock.ts'
import { newEventId } from '../../domain/identifiers.ts'
import type { Mode } from '../../domain/kinds.ts'
import { parseHttpUrl } from '../../domain/urls.ts'
import { post } from '../../events/dispatcher.ts'
import { signatureHeaders } from '../../events/signing.ts'
import { forbiddenHostReason } from '../../events/ssrf.ts'
import type { FailedEvent } from '../../store/repositories/outbox.ts'
import type { AppContext } from '../context.ts'
import { type KeyPair, maskedApiKey, revokeApiKey, rotateKeyPair } from '../merchants.ts'
import { rotateWebhookSecret, signingSecrets } from '../webhook-secrets.ts'
import { type Actor, audit } from './audit.ts'

export type { FailedEvent }

/** A key pair as the developers page lists it: masked, with an id its forms name it by, never the key itself. */
export interface ApiKeyView {
  /** A digest of the api-key: the revoke form names the key by it, so the page never holds the key whole. */
  id: string
  masked: string
  createdAtUs: number
  revokedAtUs: number | null
  /** The store does not record when a key was last used: always null for now. */
  lastUsedAtUs: null
}

export interface DevelopersView {
  keys: ApiKeyView[]
  failures: FailedEvent[]
}

const failuresShown = 20

const keyIdOf = (apiKey: string) => createHash('sha256').update(apiKey).digest('hex').slice(0, 24)

/** The developers page's reads: the mode's key pairs, and its latest callbacks whose last attempt failed. */
export async function developersView(
  context: AppContext,
  merchantId: string,
  mode: Mode,
): Promise<DevelopersView> {
  const [keys, failures] = await Promise.all([
    context.store.apiKeys.listKeys(merchantId, mode),
    context.store.outbox.recentFailures(merchantId, mode, failuresShown),
  ])
  return {
    keys: keys.map((key) => ({
      id: keyIdOf(key.apiKey),
      masked: maskedApiKey(key.apiKey),
      createdAtUs: key.createdAtUs,
      revokedAtUs: key.revokedAtUs,
      lastUsedAtUs: null,
    })),
    failures: failures.filter(({ lastAttempt }) => !succeeded(lastAttempt?.statusCode ?? null)),
  }
}

const succeeded = (statusCode: number | null) => statusCode !== null && statusCode >= 200 && statusCode < 300

/** A new key pair for the mode, the ones it replaces revoked; the secret-key is in the answer only. */
export async function issueKeyPair(
  context: AppContext,
  actor: Actor,
  merchantId: string,
  mode: Mode,
): Promise<KeyPair | undefined> {
  return rotateKeyPair(context, merchantId, mode, actor)
}

/** Revokes the merchant's key of the mode that the page names by `keyId`: its masked name, or undefined when none such is active. */
export async function revokeKeyOf(
  context: AppContext,
  actor: Actor,
  merchantId: string,
  mode: Mode,
  keyId: string,
): Promise<string | undefined> {
  const keys = await context.store.apiKeys.listKeys(merchantId, mode)
  const key = keys.find((candidate) => keyIdOf(candidate.apiKey) === keyId && candidate.revokedAtUs === null)
  if (!key || !(await revokeApiKey(context, key.apiKey, actor))) return undefined
  return maskedApiKey(key.apiKey)
}

/** A new webhook secret for the mode, shown once; the previous one keeps signing for 24 hours. */
export async function issueWebhookSecret(
  context: AppContext,
  actor: Actor,
  merchantId: string,
  mode: Mode,
): Promise<string | undefined> {
  return rotateWebhookSecret(context, merchantId, mode, actor)
}

/** What a test callback came to: the URL refused before sending, or the answer (or the error) and how long it took. */
export type TestCallbackResult =
  | { refused: 'url_invalid' }
  | { refused: 'url_forbidden'; reason: string }
  | { url: string; eventId: string; statusCode: number | null; error: string | null; durationMs: number }

/**
 * Sends a signed `test.callback` event to the URL now, as a delivery would: signed with the
 * mode's webhook secrets, through the same agent, so a live test reaches public addresses only
 * (the API's SSRF rule), no redirect followed. Nothing is written to the outbox; the test is audited.
 */
export async function sendTestCallback(
  context: AppContext,
  actor: Actor,
  merchantId: string,
  mode: Mode,
  urlText: string,
): Promise<TestCallbackResult> {
  const url = parseHttpUrl(urlText.trim())?.href
  if (!url || urlText.length > 2048) return { refused: 'url_invalid' }
  if (mode === 'live') {
    const reason = await forbiddenHostReason(url)
    if (reason) return { refused: 'url_forbidden', reason }
  }
  const eventId = newEventId()
  const body = JSON.stringify({
    id: eventId,
    type: 'test.callback',
    createdAt: formatTimestamp(context.clock.nowUs()),
    mode,
    data: { test: { message: 'A test callback sent from the Sika dashboard.' } },
  })
  const headers = {
    'content-type': 'application/json',
    'user-agent': 'Sika-Webhooks/1',
    ...signatureHeaders(
      eventId,
      Math.floor(Date.now() / 1000),
      body,
      await signingSecrets(context, merchantId, mode),
    ),
  }
  const started = performance.now()
  const answer = await post(url, body, headers, mode === 'live')
  const durationMs = Math.round(performance.now() - started)
  const result = { url, eventId, statusCode: answer.statusCode, error: answer.error, durationMs }
  await audit(context, actor, {
    merchantId,
    mode,
    action: 'callback.tested',
    // The query may carry the merchant's own token: the audit names the origin and path only.
    target: url.split('?')[0] ?? url,
    after: { eventId, statusCode: answer.statusCode, error: answer.error, durationMs },
  })
  return result
}
