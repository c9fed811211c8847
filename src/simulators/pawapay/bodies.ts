import { amountPattern } from './amounts.ts'
import { type Refusal, technical } from './errors.ts'
import {
  type Checked,
  isObject,
  type JsonObject,
  optionalString,
  parseObject,
  requiredObject,
  requiredString,
  unsupportedField,
} from './fields.ts'
import type { OperationSpec } from './operations.ts'

export interface AccountDetails {
  readonly phoneNumber: string
  readonly provider: string
}

/** An initiation body once its shape is checked (its values are checked by rules.ts). */
export interface InitiationBody {
  readonly id: string
  /** Undefined only for a refund of the whole remaining amount. */
  readonly amount: string | undefined
  readonly currency: string | undefined
  /** Undefined for a refund, whose recipient is the refunded deposit's payer. */
  readonly accountDetails: AccountDetails | undefined
  /** The deposit a refund refunds. */
  readonly depositId: string | undefined
  readonly clientReferenceId: string | undefined
  readonly customerMessage: string | undefined
  /** As pawaPay returns it: one flat object, `isPII` flags dropped. */
  readonly metadata: Record<string, unknown> | undefined
}

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
/** customerMessage: 4 to 22 letters, digits and spaces (SOURCES.md, "customerMessage"). */
const customerMessagePattern = /^[a-zA-Z0-9 ]{4,22}$/
const maxMetadataEntries = 10

function checkUuid(body: JsonObject, name: string): Checked<string> {
  const value = requiredString(body, name)
  if (value.refusal) return value
  return uuid.test(value.value)
    ? value
    : { refusal: technical.invalidParameter(name, 'it must be a UUID of 36 characters.') }
}

/** `payer` / `recipient`: `{type: "MMO", accountDetails: {phoneNumber, provider}}`. */
function checkParty(body: JsonObject, name: string): Checked<AccountDetails> {
  const party = requiredObject(body, name)
  if (party.refusal) return party
  const extra = unsupportedField(party.value, ['type', 'accountDetails'], `${name}.`)
  if (extra) return { refusal: extra }
  const type = requiredString(party.value, 'type', `${name}.`)
  if (type.refusal) return type
  if (type.value !== 'MMO')
    return { refusal: technical.invalidParameter(`${name}.type`, "only 'MMO' is supported.") }
  const details = requiredObject(party.value, 'accountDetails', `${name}.`)
  if (details.refusal) return details
  const at = `${name}.accountDetails.`
  const detailsExtra = unsupportedField(details.value, ['phoneNumber', 'provider'], at)
  if (detailsExtra) return { refusal: detailsExtra }
  const phoneNumber = requiredString(details.value, 'phoneNumber', at)
  if (phoneNumber.refusal) return phoneNumber
  const provider = requiredString(details.value, 'provider', at)
  if (provider.refusal) return provider
  return { value: { phoneNumber: phoneNumber.value, provider: provider.value } }
}

function checkMetadataEntry(entry: unknown, flat: Record<string, unknown>): Refusal | undefined {
  if (!isObject(entry)) return technical.invalidParameter('metadata', 'each entry must be an object.')
  const { isPII, ...fields } = entry
  if (isPII !== undefined && typeof isPII !== 'boolean') {
    return technical.invalidParameter('metadata.isPII', 'it must be a boolean.')
  }
  const names = Object.keys(fields)
  const [name] = names
  if (name === undefined || names.length !== 1) {
    return technical.invalidParameter('metadata', 'each entry must hold exactly one field.')
  }
  const value = fields[name]
  if (typeof value === 'object' && value !== null) {
    return technical.invalidParameter(`metadata.${name}`, 'it must be a string, a number or a boolean.')
  }
  if (Object.hasOwn(flat, name)) return technical.duplicateMetadataField(name)
  flat[name] = value
  return undefined
}

/** `metadata`: an array of single-field objects, each optionally flagged `isPII`. */
function checkMetadata(body: JsonObject): Checked<Record<string, unknown> | undefined> {
  const value = body.metadata
  if (value === undefined || value === null) return { value: undefined }
  if (!Array.isArray(value))
    return { refusal: technical.invalidParameter('metadata', 'it must be an array.') }
  if (value.length > maxMetadataEntries) {
    return { refusal: technical.invalidParameter('metadata', `at most ${maxMetadataEntries} entries.`) }
  }
  const flat: Record<string, unknown> = {}
  for (const entry of value) {
    const refusal = checkMetadataEntry(entry, flat)
    if (refusal) return { refusal }
  }
  return { value: flat }
}

/** amount and currency: mandatory, except on a refund, where an amount needs its currency. */
function checkMoney(body: JsonObject, spec: OperationSpec): Checked<{ amount?: string; currency?: string }> {
  if (!spec.partyInBody && (body.amount === undefined || body.amount === null)) {
    const currency = optionalString(body, 'currency')
    return currency.refusal ? currency : { value: { currency: currency.value } }
  }
  const amount = requiredString(body, 'amount')
  if (amount.refusal) return amount
  if (!amountPattern.test(amount.value)) {
    return {
      refusal: technical.invalidParameter('amount', 'it must be a decimal number such as "15" or "15.5".'),
    }
  }
  const currency = requiredString(body, 'currency')
  if (currency.refusal) return currency
  if (!/^[A-Z]{3}$/.test(currency.value)) {
    return { refusal: technical.invalidParameter('currency', 'it must be an ISO 4217 code in upper case.') }
  }
  return { value: { amount: amount.value, currency: currency.value } }
}

type Texts = Pick<InitiationBody, 'clientReferenceId' | 'customerMessage' | 'metadata'>

function checkTexts(body: JsonObject): Checked<Texts> {
  const clientReferenceId = optionalString(body, 'clientReferenceId')
  if (clientReferenceId.refusal) return clientReferenceId
  const customerMessage = optionalString(body, 'customerMessage')
  if (customerMessage.refusal) return customerMessage
  if (customerMessage.value !== undefined && !customerMessagePattern.test(customerMessage.value)) {
    return {
      refusal: technical.invalidParameter('customerMessage', 'it must be 4 to 22 letters, digits or spaces.'),
    }
  }
  for (const name of ['preAuthorisationCode', 'successfulUrl', 'failedUrl']) {
    const text = optionalString(body, name)
    if (text.refusal) return text
  }
  const metadata = checkMetadata(body)
  if (metadata.refusal) return metadata
  return {
    value: {
      clientReferenceId: clientReferenceId.value,
      customerMessage: customerMessage.value,
      metadata: metadata.value,
    },
  }
}

/** Checks an initiation body's shape: a failure here is a 400 technical failure. */
export function checkInitiationBody(raw: string, spec: OperationSpec): Checked<InitiationBody> {
  const parsed = parseObject(raw)
  return parsed.refusal ? parsed : checkInitiationObject(parsed.value, spec)
}

/** The same checks on one parsed request (one item of a bulk payout). */
export function checkInitiationObject(body: JsonObject, spec: OperationSpec): Checked<InitiationBody> {
  const extra = unsupportedField(body, spec.allowedFields)
  if (extra) return { refusal: extra }
  const id = checkUuid(body, spec.idField)
  if (id.refusal) return id
  const depositId = spec.partyInBody ? undefined : checkUuid(body, 'depositId')
  if (depositId?.refusal) return depositId
  const money = checkMoney(body, spec)
  if (money.refusal) return money
  const party = spec.partyInBody ? checkParty(body, spec.partyField) : undefined
  if (party?.refusal) return party
  const texts = checkTexts(body)
  if (texts.refusal) return texts
  return {
    value: {
      id: id.value,
      amount: money.value.amount,
      currency: money.value.currency,
      accountDetails: party?.value,
      depositId: depositId?.value,
      ...texts.value,
    },
  }
}

/** The merchant's id in a body, if it has one, so even a refusal can name it. */
export function idInBody(raw: string, spec: OperationSpec): string | undefined {
  const parsed = parseObject(raw)
  const id = parsed.refusal ? undefined : parsed.value[spec.idField]
  return typeof id === 'string' ? id : undefined
}
