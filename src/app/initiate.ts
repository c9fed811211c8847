import { createHash, randomUUID } from 'node:crypto'
import { newOperationToken } from '../domain/identifiers.ts'
import { type OperationKind, paysOut, refundKindFor } from '../domain/kinds.ts'
import type { Metadata, Operation, OperationUrls } from '../domain/operation.ts'
import { statementDescriptorOf } from '../domain/statement-descriptor.ts'
import { type FieldError, validationFailed } from '../errors.ts'
import { forbiddenHostReason } from '../events/ssrf.ts'
import type { AppContext } from './context.ts'
import { answerIfMade } from './idempotency.ts'
import { submitSides } from './lifecycle.ts'
import {
  controlsFor,
  dailyPayoutLimitOf,
  type PricedAmount,
  refuseAboveMaxAmount,
  refusePausedPayouts,
} from './merchant-controls.ts'
import { priceSides } from './price-sides.ts'
import type { Principal } from './principal.ts'
import { executeWrite } from './write-pipeline.ts'
import { answerRefusal, WriteRefusal } from './write-refusals.ts'

const urlFields = [
  'callbackUrl',
  'pendingUrl',
  'succeededUrl',
  'failedUrl',
  'canceledUrl',
  'errorUrl',
] as const

/** A validated initiation request: the side fields (flat, or under each role), the reference, the URLs and metadata. */
export type Initiation = Record<string, unknown> & {
  merchantReference: string
  metadata?: Metadata
  statementDescriptor?: string
} & { [Field in (typeof urlFields)[number]]?: string }

/**
 * A collect paid on a payment link's page: the link it belongs to, and Sika's own page where every
 * outcome sends the customer's browser (set here, so live mode's check of merchants' URLs, which
 * refuses a private host, never sees it).
 */
export interface LinkPlacement {
  paymentLink: string
  outcomeUrl: string
  /** The link's own succeededUrl, which a succeeded payment goes to instead. */
  succeededUrl?: string
}

/**
 * Initiates an operation of any kind: prices its sides, refuses internal URLs in live mode,
 * writes it through the pipeline (which asks a provider that needs no I/O at once), then hands
 * the sides that need an operator to it, outside any transaction. A refusal before the write is
 * first checked against the merchantReference, so a retry gets what its first try made.
 */
export async function initiateOperation(
  context: AppContext,
  principal: Principal,
  kind: OperationKind,
  input: Initiation,
  placement?: LinkPlacement,
): Promise<Operation> {
  const requestHash = hashRequest(input)
  let draft: Operation
  let dailyPayoutLimitMinor: number | undefined
  try {
    const controls = await controlsFor(context, principal)
    if (paysOut(kind)) refusePausedPayouts(controls)
    draft = await draftInitiation(context, principal, kind, input, requestHash)
    refuseAboveMaxAmount(controls, principal.mode, amountsOf(draft))
    if (paysOut(kind)) dailyPayoutLimitMinor = dailyPayoutLimitOf(controls, draft.currency)
    if (placement) placeOnLink(draft, placement)
  } catch (refusal) {
    const { merchantId, mode } = principal
    return answerIfMade(
      context,
      { merchantId, mode, kind, merchantReference: input.merchantReference },
      requestHash,
      refusal,
    )
  }
  return openAndSubmit(context, draft, dailyPayoutLimitMinor)
}

/** The amounts asked of an operation, side by side, as the request named them. */
export function amountsOf(draft: Operation): PricedAmount[] {
  return draft.sides.map((side) => ({
    field: side.role === 'main' ? 'amount' : `${side.role}.amount`,
    currency: side.currency,
    amountMinor: side.amountMinor,
  }))
}

async function draftInitiation(
  context: AppContext,
  principal: Principal,
  kind: OperationKind,
  input: Initiation,
  requestHash: string,
): Promise<Operation> {
  const sides = await priceSides(context, principal, kind, input)
  const descriptor = input.statementDescriptor ?? statementDescriptorOf(principal.merchantName)
  if (descriptor) for (const side of sides) side.statementDescriptor = descriptor
  if (principal.mode === 'live') await refuseInternalUrls(input)
  return newOperationDraft(principal, kind, {
    merchantReference: input.merchantReference,
    requestHash,
    sides,
    urls: urlsOf(input),
    metadata: input.metadata,
  })
}

function placeOnLink(draft: Operation, placement: LinkPlacement): void {
  draft.paymentLink = placement.paymentLink
  const url = placement.outcomeUrl
  Object.assign(draft.urls, {
    pendingUrl: url,
    succeededUrl: url,
    failedUrl: url,
    canceledUrl: url,
    errorUrl: url,
  })
}

/** A new operation, pending, before the write pipeline numbers and dates it. */
export function newOperationDraft(
  principal: Principal,
  kind: OperationKind,
  fields: Pick<Operation, 'merchantReference' | 'requestHash' | 'sides' | 'urls' | 'metadata' | 'refundOf'>,
): Operation {
  const { metadata, refundOf, ...rest } = fields
  // Live sides go to operators: each gets its operator reference now, stored with the operation.
  if (principal.mode === 'live') for (const side of rest.sides) side.operatorReference ??= randomUUID()
  return {
    id: 0,
    token: newOperationToken(),
    merchantId: principal.merchantId,
    mode: principal.mode,
    kind,
    position: 0,
    status: 'pending',
    ...rest,
    currency: fields.sides[0]!.currency,
    redirectUrl: null,
    failure: null,
    initiatedAtUs: 0,
    completedAtUs: null,
    updatedAtUs: 0,
    ...(metadata ? { metadata } : {}),
    ...(refundOf ? { refundOf } : {}),
    // A kind that can be refunded may give back at most its amount.
    ...(refundKindFor(kind)
      ? { refunds: { refundableMinor: fields.sides[0]!.amountMinor, refundedMinor: 0 } }
      : {}),
  }
}

/**
 * Writes the new operation through the pipeline (which asks a provider that needs no I/O at once),
 * then hands the sides that need an operator to it, outside any transaction.
 */
export async function openAndSubmit(
  context: AppContext,
  draft: Operation,
  dailyPayoutLimitMinor?: number,
): Promise<Operation> {
  let written: Operation
  try {
    written = await executeWrite(context, { type: 'open', draft, dailyPayoutLimitMinor })
  } catch (error) {
    if (error instanceof WriteRefusal) return answerRefusal(context, draft, error)
    throw error
  }
  return submitSides(context, written)
}

function urlsOf(input: Initiation): OperationUrls {
  return {
    callbackUrl: input.callbackUrl ?? null,
    pendingUrl: input.pendingUrl,
    succeededUrl: input.succeededUrl,
    failedUrl: input.failedUrl,
    canceledUrl: input.canceledUrl,
    errorUrl: input.errorUrl,
  }
}

/** CONTRACT.md, Callbacks: live mode refuses URLs whose host is, or resolves to, a non-public address (SSRF). */
export async function refuseInternalUrls(input: Initiation): Promise<void> {
  // Resolved together: each host waits about a second at most, not each in turn.
  const reasons = await Promise.all(
    urlFields.map((field) => (input[field] ? forbiddenHostReason(input[field]) : undefined)),
  )
  const errors: FieldError[] = urlFields.flatMap((field, index) => {
    const reason = reasons[index]
    return reason
      ? [{ field, code: 'forbidden_host', message: `${field} must reach a public address: ${reason}.` }]
      : []
  })
  if (errors.length > 0) throw validationFailed(errors)
}

/** Canonical JSON (sorted keys), so the same request hashes the same whatever its key order. */
export function hashRequest(input: Initiation): string {
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
