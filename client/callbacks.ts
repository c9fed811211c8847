import { Webhook, WebhookVerificationError } from 'standardwebhooks'
import type { operations } from './generated/schema.ts'
import type { RequestBody } from './results.ts'

/** A callback's body, as the document's `operationStatus` webhook describes it. */
export type CallbackEvent = RequestBody<operations['receiveOperationStatus']>

export const callbackFailureCodes = [
  'missing_headers',
  'invalid_timestamp',
  'invalid_signature',
  'invalid_payload',
] as const
export type CallbackFailureCode = (typeof callbackFailureCodes)[number]

export type CallbackVerification =
  | { readonly ok: true; readonly event: CallbackEvent }
  | { readonly ok: false; readonly error: { readonly code: CallbackFailureCode; readonly message: string } }

/** Node's IncomingHttpHeaders, fetch's Headers, or a plain record. */
export type CallbackHeaders =
  | Headers
  | Readonly<Record<string, string | readonly string[] | undefined>>
  | { get(name: string): string | null }

const signatureHeaderNames = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const

/**
 * Checks a callback Sika POSTed (Standard Webhooks, with the `standardwebhooks` package) over the
 * raw body exactly as it arrived: parse the JSON only after this accepts it. A timestamp more than
 * five minutes away from now is refused, as the specification asks, so a captured request cannot
 * be replayed later. Deliveries can repeat: deduplicate on `event.id`. A malformed secret throws:
 * that is the receiver's configuration, not the request, at fault.
 */
export function verifyCallback(
  webhookSecret: string,
  rawBody: string | Uint8Array,
  headers: CallbackHeaders,
): CallbackVerification {
  const webhook = new Webhook(webhookSecret)
  const signed = signatureHeaders(headers)
  const missing = signatureHeaderNames.filter((name) => !signed[name])
  if (missing.length > 0) return failure('missing_headers', `missing ${missing.join(', ')}`)
  const body = typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody)
  let payload: unknown
  try {
    payload = webhook.verify(body, signed)
  } catch (error) {
    if (!(error instanceof WebhookVerificationError)) {
      return failure('invalid_payload', `the body is not JSON: ${(error as Error).message}`)
    }
    const code = /timestamp|Invalid Signature Headers/i.test(error.message)
      ? 'invalid_timestamp'
      : 'invalid_signature'
    return failure(code, error.message)
  }
  if (!isCallbackEvent(payload)) return failure('invalid_payload', 'the body is not a Sika callback event')
  // The signature covers both; a body naming another event than the header is not this delivery.
  if (payload.id !== signed['webhook-id'])
    return failure('invalid_payload', 'the event id differs from webhook-id')
  return { ok: true, event: payload }
}

function failure(code: CallbackFailureCode, message: string): CallbackVerification {
  return { ok: false, error: { code, message } }
}

function signatureHeaders(headers: CallbackHeaders): Record<string, string> {
  const read = (name: string): string | undefined => {
    if (typeof headers.get === 'function')
      return (headers as { get(name: string): string | null }).get(name) ?? undefined
    const record = headers as Readonly<Record<string, string | readonly string[] | undefined>>
    const key = Object.keys(record).find((candidate) => candidate.toLowerCase() === name)
    const value = key === undefined ? undefined : record[key]
    return typeof value === 'string' ? value : value?.join(' ')
  }
  const found: Record<string, string> = {}
  for (const name of signatureHeaderNames) {
    const value = read(name)
    if (value) found[name] = value
  }
  return found
}

function isCallbackEvent(payload: unknown): payload is CallbackEvent {
  if (typeof payload !== 'object' || payload === null) return false
  const event = payload as Record<string, unknown>
  const data = event.data
  return (
    typeof event.id === 'string' &&
    typeof event.type === 'string' &&
    typeof event.createdAt === 'string' &&
    typeof data === 'object' &&
    data !== null &&
    Object.keys(data).length === 1
  )
}
