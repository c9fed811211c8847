import { createHash } from 'node:crypto'
import { newOperationToken } from '../domain/identifiers.ts'
import { type OperationKind, operationKinds, type SideKind } from '../domain/kinds.ts'
import { countries, currencies, isCountry, toMinorUnits } from '../domain/money.ts'
import type { Side } from '../domain/operation.ts'
import { price } from '../domain/pricing.ts'
import { ApiError, type ErrorCode, type FieldError, validationFailed } from '../errors.ts'
import { recordStatusEvent } from '../events/outbox.ts'
import { forbiddenHostReason } from '../events/ssrf.ts'
import { findFeeRule, findRoute } from './catalogue.ts'
import type { AppContext } from './context.ts'
import { nextCounterValue, placeHold } from './ledger.ts'
import { submitSides } from './lifecycle.ts'
import type { Principal } from './merchants.ts'
import {
  findOperationById,
  findOperationByReference,
  type Operation,
  type OperationUrls,
  sideColumns,
} from './operation-rows.ts'
import { scheduleWork } from './scheduled-work.ts'
import { submissionGraceMs } from './state-machine.ts'

export interface CustomerInput {
  fullName?: string
  phoneNumber: string
  email?: string
}

export interface SideInput {
  amount: number
  channel: string
  country: string
  customer: CustomerInput
}

interface UrlInputs {
  callbackUrl?: string
  pendingUrl?: string
  succeededUrl?: string
  failedUrl?: string
  canceledUrl?: string
  errorUrl?: string
}

export interface SingleInitiation extends SideInput, UrlInputs {
  merchantReference: string
}

export interface TransferInitiation extends UrlInputs {
  from: SideInput
  to: SideInput
  merchantReference: string
}

export type Initiation = SingleInitiation | TransferInitiation

/** Rejections in order of precedence: when several apply, the first names the answer. */
const rejectionPrecedence: ErrorCode[] = ['validation_failed', 'channel_unavailable', 'amount_out_of_range']

/**
 * The write pipeline of CONTRACT.md and STYLE.md: idempotency, validation and pricing, then
 * one transaction that numbers the operation, inserts it under its unique reference and holds
 * any cash-out; then each side goes to its provider and its answer re-enters the state machine.
 */
export async function initiateOperation(
  context: AppContext,
  principal: Principal,
  kind: OperationKind,
  input: Initiation,
): Promise<Operation> {
  const requestHash = hashRequest(input)
  const existing = await findOperationByReference(
    context.store.db,
    principal.merchantId,
    principal.mode,
    kind,
    input.merchantReference,
  )
  if (existing) return sameRequestOrConflict(existing, requestHash)

  const sides = await priceSides(context, principal, kind, input)
  if (principal.mode === 'live') await refuseInternalUrls(input)
  const created = await insertPendingOperation(context, principal, kind, input, sides, requestHash)
  if (created.kind === 'duplicate') return sameRequestOrConflict(created.existing, requestHash)
  return submitSides(context, created.operation)
}

const urlFields = [
  'callbackUrl',
  'pendingUrl',
  'succeededUrl',
  'failedUrl',
  'canceledUrl',
  'errorUrl',
] as const

/** CONTRACT.md, Callbacks: live mode refuses URLs whose host is, or resolves to, a non-public address (SSRF). */
async function refuseInternalUrls(input: Initiation): Promise<void> {
  const errors: FieldError[] = []
  for (const field of urlFields) {
    const url = input[field]
    if (!url) continue
    const reason = await forbiddenHostReason(url)
    if (reason)
      errors.push({
        field,
        code: 'forbidden_host',
        message: `${field} must reach a public address: ${reason}.`,
      })
  }
  if (errors.length > 0) throw validationFailed(errors)
}

function sameRequestOrConflict(existing: Operation, requestHash: string): Operation {
  if (existing.requestHash === requestHash) return existing
  throw new ApiError('duplicate_merchant_reference')
}

/** Canonical JSON (sorted keys), so the same request hashes the same whatever its key order. */
function hashRequest(input: Initiation): string {
  const canonical = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(canonical)
    if (value && typeof value === 'object') {
      return Object.fromEntries(
        Object.entries(value)
          .filter(([, entry]) => entry !== undefined)
          .sort(([a], [b]) => (a < b ? -1 : 1))
          .map(([key, entry]) => [key, canonical(entry)]),
      )
    }
    return value
  }
  return createHash('sha256')
    .update(JSON.stringify(canonical(input)))
    .digest('hex')
}

async function priceSides(
  context: AppContext,
  principal: Principal,
  kind: OperationKind,
  input: Initiation,
): Promise<Side[]> {
  const rejections: { code: ErrorCode; error: FieldError }[] = []
  const plan: { role: Side['role']; sideKind: SideKind; input: SideInput; prefix: string }[] =
    'from' in input
      ? [
          { role: 'from', sideKind: 'collect', input: input.from, prefix: 'from.' },
          { role: 'to', sideKind: 'disbursement', input: input.to, prefix: 'to.' },
        ]
      : [{ role: 'main', sideKind: kind as SideKind, input, prefix: '' }]
  const sides: Side[] = []
  for (const step of plan) {
    const side = await priceSide(
      context,
      principal,
      step.role,
      step.sideKind,
      step.input,
      step.prefix,
      rejections,
    )
    if (side) sides.push(side)
  }
  const [from, to] = sides
  if (kind === 'transfer' && from && to && from.currency !== to.currency) {
    rejections.push({
      code: 'validation_failed',
      error: {
        field: 'to.country',
        code: 'currency_mismatch',
        message: `Both sides must share a currency: from is ${from.currency}, to is ${to.currency}.`,
      },
    })
  }
  if (rejections.length > 0) {
    const code = rejectionPrecedence.find((candidate) =>
      rejections.some((rejection) => rejection.code === candidate),
    )
    throw validationFailed(
      rejections.map((rejection) => rejection.error),
      code,
    )
  }
  return sides
}

async function priceSide(
  context: AppContext,
  principal: Principal,
  role: Side['role'],
  kind: SideKind,
  input: SideInput,
  prefix: string,
  rejections: { code: ErrorCode; error: FieldError }[],
): Promise<Side | undefined> {
  const reject = (code: ErrorCode, field: string, fieldCode: string, message: string) => {
    rejections.push({ code, error: { field: prefix + field, code: fieldCode, message } })
    return undefined
  }
  if (!isCountry(input.country)) {
    return reject('validation_failed', 'country', 'unsupported', `Country ${input.country} is not served.`)
  }
  const currency = countries[input.country]
  const amountMinor = toMinorUnits(input.amount, currency)
  if (amountMinor === undefined) {
    const scale = currencies[currency].scale
    return reject(
      'validation_failed',
      'amount',
      'invalid_precision',
      `${currency} amounts take ${scale === 0 ? 'no decimals' : `at most ${scale} decimals`}.`,
    )
  }
  const route = await findRoute(context.store.db, input.channel, input.country, kind)
  const rule =
    route && (await findFeeRule(context.store.db, principal.merchantId, kind, input.channel, input.country))
  if (!route || !rule) {
    return reject(
      'channel_unavailable',
      'channel',
      'channel_unavailable',
      `Channel ${input.channel} does not serve ${kind} in ${input.country}; GET /api/v1/channels lists what does.`,
    )
  }
  if (amountMinor < route.minAmountMinor || amountMinor > route.maxAmountMinor) {
    const unit = 10 ** currencies[currency].scale
    return reject(
      'amount_out_of_range',
      'amount',
      'amount_out_of_range',
      `${input.channel} ${kind} in ${input.country} takes ${route.minAmountMinor / unit} to ${route.maxAmountMinor / unit} ${currency}.`,
    )
  }
  const priced = price(amountMinor, operationKinds[kind].direction, rule)
  if (!priced) {
    return reject('validation_failed', 'amount', 'below_fees', 'The fees would leave nothing to move.')
  }
  return {
    role,
    kind,
    channel: input.channel,
    country: input.country,
    currency,
    amountMinor,
    feesMinor: priced.feesMinor,
    transactionAmountMinor: priced.transactionAmountMinor,
    cashAmountMinor: priced.cashAmountMinor,
    percentageMilli: rule.percentageMilli,
    additionalFeeMinor: rule.additionalFeeMinor,
    supportedByAccount: rule.supportedByAccount,
    customer: {
      fullName: input.customer.fullName ?? '',
      phoneNumber: input.customer.phoneNumber,
      email: input.customer.email ?? '',
    },
    status: 'pending',
  }
}

type InsertResult = { kind: 'created'; operation: Operation } | { kind: 'duplicate'; existing: Operation }

class DuplicateReference extends Error {}
class InsufficientBalance extends Error {}

async function insertPendingOperation(
  context: AppContext,
  principal: Principal,
  kind: OperationKind,
  input: Initiation,
  sides: Side[],
  requestHash: string,
): Promise<InsertResult> {
  const { merchantId, mode } = principal
  const urls: OperationUrls = {
    callbackUrl: input.callbackUrl ?? null,
    pendingUrl: input.pendingUrl,
    succeededUrl: input.succeededUrl,
    failedUrl: input.failedUrl,
    canceledUrl: input.canceledUrl,
    errorUrl: input.errorUrl,
  }
  const currency = sides[0]!.currency
  try {
    const operation = await context.store.transaction(async (trx) => {
      const position = await nextCounterValue(trx, merchantId, mode, kind)
      // Read after the counter's lock is held: list order (position) and date order then agree.
      const now = context.clock.nowMicros()
      const token = newOperationToken()
      const inserted = await trx
        .insertInto('operations')
        .values({
          token,
          merchant_id: merchantId,
          mode,
          kind,
          position,
          status: 'pending',
          merchant_reference: input.merchantReference,
          request_hash: requestHash,
          currency,
          ...sideColumns(sides),
          sides: JSON.stringify(sides),
          urls: JSON.stringify(urls),
          redirect_url: null,
          failure_code: null,
          failure_message: null,
          initiated_at_us: now,
          completed_at_us: null,
          updated_at_us: now,
        })
        // A concurrent twin committed first: ours becomes a no-op, never a second operation.
        .onConflict((conflict) =>
          conflict.columns(['merchant_id', 'mode', 'kind', 'merchant_reference']).doNothing(),
        )
        .returning('id')
        .executeTakeFirst()
      if (!inserted) throw new DuplicateReference()
      const ledger = { id: inserted.id, token, kind, merchantId, mode, currency }
      for (const side of sides) {
        if (side.kind !== 'disbursement' && side.kind !== 'withdraw') continue
        const hold = await placeHold(trx, ledger, 'cash-out', side.cashAmountMinor, context.clock)
        if (hold === 'insufficient_balance') throw new InsufficientBalance()
      }
      const pending = (await findOperationById(trx, inserted.id))!
      await recordStatusEvent(trx, pending, context.clock)
      await scheduleWork(trx, 'expire', inserted.id, 'main', now + context.config.operationTtlMs * 1000)
      await scheduleWork(trx, 'submit', inserted.id, sides[0]!.role, now + submissionGraceMs * 1000)
      return pending
    })
    return { kind: 'created', operation }
  } catch (error) {
    if (error instanceof InsufficientBalance) {
      throw new ApiError('insufficient_balance', undefined, [
        {
          field: kind === 'transfer' ? 'to.amount' : 'amount',
          code: 'insufficient_balance',
          message: `The available ${currency} balance does not cover the cash amount.`,
        },
      ])
    }
    if (error instanceof DuplicateReference || context.store.dialect.isUniqueViolation(error)) {
      const existing = await findOperationByReference(
        context.store.db,
        merchantId,
        mode,
        kind,
        input.merchantReference,
      )
      if (existing) return { kind: 'duplicate', existing }
    }
    throw error
  }
}
