import type { SimulatorConfig } from './config.ts'
import { type Refusal, refusals } from './errors.ts'
import type { Party } from './ledger.ts'
import type { OperationSpec } from './operations.ts'

/** What a create request's body carries once checked. */
export interface CheckedBody {
  readonly amount: string
  readonly currency: string
  readonly externalId: string | undefined
  readonly party: Party | undefined
  readonly payerMessage: string | undefined
  readonly payeeNote: string | undefined
  readonly referenceIdToRefund: string | undefined
}

export type Checked<T> = { readonly value: T; readonly refusal?: undefined } | { readonly refusal: Refusal }

const uuidV4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i
/** MoMo caps payerMessage and payeeNote at 160 characters (MTN "MoMo API common errors", 400). */
const noteMaxLength = 160

export function isUuidV4(value: string | undefined): value is string {
  return value !== undefined && uuidV4.test(value)
}

/** X-Reference-Id must be a UUID version 4 (requesttopay-POST: "generated using UUID version 4"). */
export function checkReferenceId(value: string | undefined): Checked<string> {
  if (value === undefined || value === '')
    return { refusal: refusals.badRequest('X-Reference-Id is required.') }
  return isUuidV4(value)
    ? { value }
    : { refusal: refusals.badRequest('X-Reference-Id must be a UUID version 4.') }
}

/** An X-Callback-Url, when present, is an absolute http(s) URL on the API user's callback host. */
export function checkCallbackUrl(value: string | undefined, config: SimulatorConfig): Refusal | undefined {
  if (value === undefined) return undefined
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return refusals.badRequest('X-Callback-Url must be an absolute URL.')
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return refusals.badRequest('X-Callback-Url must be an http or https URL.')
  }
  const host = config.providerCallbackHost
  if (host !== undefined && url.hostname !== host) return refusals.invalidCallbackUrlHost()
  return undefined
}

/** Party identifies an account holder: MSISDN (ITU-T E.164 digits), EMAIL, or PARTY_CODE (a UUID). */
function checkParty(value: unknown, role: string): Checked<Party> {
  if (typeof value !== 'object' || value === null)
    return { refusal: refusals.badRequest(`${role} is required.`) }
  const { partyIdType, partyId } = value as Record<string, unknown>
  if (typeof partyId !== 'string' || partyId === '') {
    return { refusal: refusals.badRequest(`${role}.partyId is required.`) }
  }
  const valid: Record<string, (id: string) => boolean> = {
    MSISDN: (id) => /^\d{5,15}$/.test(id),
    EMAIL: (id) => /^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(id),
    PARTY_CODE: (id) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id),
  }
  const check =
    typeof partyIdType === 'string' && Object.hasOwn(valid, partyIdType) ? valid[partyIdType] : undefined
  if (check === undefined) {
    return { refusal: refusals.badRequest(`${role}.partyIdType must be one of MSISDN, EMAIL, PARTY_CODE.`) }
  }
  if (!check(partyId))
    return { refusal: refusals.badRequest(`${role}.partyId is not a valid ${partyIdType}.`) }
  return { value: { partyIdType: partyIdType as string, partyId } }
}

function optionalText(
  body: Record<string, unknown>,
  name: string,
  maxLength?: number,
): Checked<string | undefined> {
  const value = body[name]
  if (value === undefined || value === null) return { value: undefined }
  if (typeof value !== 'string') return { refusal: refusals.badRequest(`${name} must be a string.`) }
  if (maxLength !== undefined && value.length > maxLength) {
    return { refusal: refusals.badRequest(`${name} must be at most ${maxLength} characters.`) }
  }
  return { value }
}

/** Amount is a string of a positive decimal ("Amount that will be debited", type string). */
function checkAmount(value: unknown): Refusal | undefined {
  if (typeof value !== 'string') return refusals.badRequest('amount must be a string.')
  if (!/^\d+(\.\d+)?$/.test(value) || Number(value) <= 0) {
    return refusals.badRequest('amount must be a positive decimal number.')
  }
  return undefined
}

/** "5.0" becomes "5" and "0100.50" becomes "100.5", as MoMo echoes amounts. */
export function canonicalAmount(amount: string): string {
  const [whole = '0', fraction = ''] = amount.split('.')
  const integer = whole.replace(/^0+(?=\d)/, '')
  const decimals = fraction.replace(/0+$/, '')
  return decimals === '' ? integer : `${integer}.${decimals}`
}

/** MoMo rejects special characters such as an apostrophe anywhere in a body (MTN "MoMo API common errors"). */
function hasApostrophe(value: unknown): boolean {
  if (typeof value === 'string') return value.includes("'")
  if (typeof value === 'object' && value !== null) return Object.values(value).some(hasApostrophe)
  return false
}

function parseObject(raw: string): Checked<Record<string, unknown>> {
  let parsed: unknown
  try {
    parsed = JSON.parse(raw)
  } catch {
    return { refusal: refusals.badRequest('The body is not valid JSON.') }
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return { refusal: refusals.badRequest('The body must be a JSON object.') }
  }
  return { value: parsed as Record<string, unknown> }
}

function checkRefundReference(
  body: Record<string, unknown>,
  spec: OperationSpec,
): Checked<string | undefined> {
  if (spec.bodyParty !== undefined) return { value: undefined }
  const given = body.referenceIdToRefund
  if (typeof given === 'string' && isUuidV4(given)) return { value: given }
  return { refusal: refusals.badRequest('referenceIdToRefund must be a UUID version 4.') }
}

type TextFields = Pick<CheckedBody, 'externalId' | 'payerMessage' | 'payeeNote' | 'referenceIdToRefund'>

/** The text fields every create body may carry, and the refund's reference. */
function checkTexts(body: Record<string, unknown>, spec: OperationSpec): Checked<TextFields> {
  const externalId = optionalText(body, 'externalId')
  if (externalId.refusal) return externalId
  const payerMessage = optionalText(body, 'payerMessage', noteMaxLength)
  if (payerMessage.refusal) return payerMessage
  const payeeNote = optionalText(body, 'payeeNote', noteMaxLength)
  if (payeeNote.refusal) return payeeNote
  const referenceIdToRefund = checkRefundReference(body, spec)
  if (referenceIdToRefund.refusal) return referenceIdToRefund
  return {
    value: {
      externalId: externalId.value,
      payerMessage: payerMessage.value,
      payeeNote: payeeNote.value,
      referenceIdToRefund: referenceIdToRefund.value,
    },
  }
}

/** Checks a create body as the wallet platform does: 400 for what breaks the spec, 500 for a currency it refuses. */
export function checkBody(raw: string, spec: OperationSpec, config: SimulatorConfig): Checked<CheckedBody> {
  const parsed = parseObject(raw)
  if (parsed.refusal) return parsed
  const body = parsed.value
  if (hasApostrophe(body))
    return { refusal: refusals.badRequest('The body contains an unsupported character.') }
  const amountRefusal = checkAmount(body.amount)
  if (amountRefusal) return { refusal: amountRefusal }
  if (typeof body.currency !== 'string' || !/^[A-Z]{3}$/.test(body.currency)) {
    return { refusal: refusals.badRequest('currency must be an ISO 4217 code.') }
  }
  let party: Party | undefined
  if (spec.bodyParty !== undefined) {
    const checked = checkParty(body[spec.bodyParty], spec.bodyParty)
    if (checked.refusal) return checked
    party = checked.value
  }
  const texts = checkTexts(body, spec)
  if (texts.refusal) return texts
  if (config.currencies !== undefined && !config.currencies.includes(body.currency)) {
    return { refusal: refusals.invalidCurrency() }
  }
  return {
    value: { amount: canonicalAmount(body.amount as string), currency: body.currency, party, ...texts.value },
  }
}
