import { newOperationToken } from '../../domain/identifiers.ts'
import { toMajorUnits } from '../../domain/money.ts'
import type { Metadata, Operation } from '../../domain/operation.ts'
import { type PayoutBatch, payoutBatchItemKind } from '../../domain/payout-batches.ts'
import { statementDescriptorOf } from '../../domain/statement-descriptor.ts'
import { ApiError, type FieldError, validationFailed } from '../../errors.ts'
import type { AppContext } from '../context.ts'
import { hashRequest, type Initiation, newOperationDraft, refuseInternalUrls } from '../initiate.ts'
import { type CustomerInput, priceSides } from '../price-sides.ts'
import type { Principal } from '../principal.ts'
import { executeWrites } from '../write-pipeline.ts'
import { DuplicateReference, InsufficientBalance } from '../write-refusals.ts'
import { countedView } from './reads.ts'
import type { PayoutBatchView } from './records.ts'

/** One payment of a batch, validated by the route's schema. */
export interface PayoutBatchItemInput {
  amount: number
  channel: string
  country: string
  customer: CustomerInput
  merchantReference: string
  callbackUrl?: string
  metadata?: Metadata
}

/** A validated payout batch request (CONTRACT.md, Payout batches). */
export interface PayoutBatchInput {
  merchantReference: string
  callbackUrl?: string
  metadata?: Metadata
  items: PayoutBatchItemInput[]
}

/** Who makes a batch: an API client, or a member in the dashboard (whose batch always awaits approval). */
export type PayoutBatchOrigin = { kind: 'api' } | { kind: 'member'; memberId: string; label: string }

/** The batch's reference was taken by a concurrent request while this one was written. */
class BatchReferenceTaken extends Error {}

/**
 * Accepts a payout batch in one transaction, all or nothing: every item priced as a disbursement
 * (a 422 naming `items[i]` otherwise), one currency, the total held (each item's own hold), each
 * item an ordinary disbursement queued in the batch. The batch's merchantReference is idempotent.
 */
export async function acceptPayoutBatch(
  context: AppContext,
  principal: Principal,
  input: PayoutBatchInput,
  origin: PayoutBatchOrigin,
): Promise<PayoutBatchView> {
  const requestHash = hashRequest(input as unknown as Initiation)
  const existing = await context.store.payoutBatches.findByReference(
    principal.merchantId,
    principal.mode,
    input.merchantReference,
  )
  if (existing) return answerForExistingBatch(context, existing, requestHash)
  const token = newOperationToken()
  const drafts = await draftItems(context, principal, input, token)
  const totalMinor = drafts.reduce((total, draft) => total + draft.sides[0]!.cashAmountMinor, 0)
  const currency = drafts[0]!.currency
  await refuseBeyondBalance(context, principal, currency, totalMinor)
  if (principal.mode === 'live' && input.callbackUrl) await refuseInternalUrls(input as unknown as Initiation)
  const awaits =
    origin.kind === 'member' || (await context.store.payoutBatches.requiresApproval(principal.merchantId))
  try {
    const batch = await executeWrites(context, async (steps) => {
      const opened: Operation[] = []
      for (const draft of drafts) opened.push(await steps.openQueued(draft))
      const batch: Omit<PayoutBatch, 'id' | 'completedAtUs' | 'approvedBy'> = {
        token,
        merchantId: principal.merchantId,
        mode: principal.mode,
        merchantReference: input.merchantReference,
        requestHash,
        status: awaits ? 'awaiting_approval' : 'processing',
        currency,
        itemCount: drafts.length,
        totalMinor,
        callbackUrl: input.callbackUrl ?? null,
        ...(input.metadata ? { metadata: input.metadata } : {}),
        createdBy: origin.kind === 'member' ? origin.label : 'API',
        createdByMember: origin.kind === 'member' ? origin.memberId : null,
        firstOperationId: opened[0]!.id,
        initiatedAtUs: steps.nowUs,
      }
      const id = await steps.tx.payoutBatches.insertIfNew(batch)
      if (id === undefined) throw new BatchReferenceTaken()
      await steps.tx.payoutBatches.insertItems(
        id,
        opened.map((operation) => operation.id),
      )
      return { ...batch, id, completedAtUs: null, approvedBy: null }
    })
    return countedView(context, batch)
  } catch (error) {
    return answerWriteRefusal(context, principal, input, requestHash, error)
  }
}

async function answerForExistingBatch(
  context: AppContext,
  existing: PayoutBatch,
  requestHash: string,
): Promise<PayoutBatchView> {
  if (existing.requestHash !== requestHash)
    throw new ApiError(
      'duplicate_merchant_reference',
      `The merchantReference ${existing.merchantReference} already names payout batch ${existing.token}, made with another body; use a new merchantReference for a new batch.`,
      undefined,
      undefined,
      { token: existing.token },
    )
  return countedView(context, existing)
}

async function answerWriteRefusal(
  context: AppContext,
  principal: Principal,
  input: PayoutBatchInput,
  requestHash: string,
  error: unknown,
): Promise<PayoutBatchView> {
  if (error instanceof BatchReferenceTaken) {
    const existing = await context.store.payoutBatches.findByReference(
      principal.merchantId,
      principal.mode,
      input.merchantReference,
    )
    if (existing) return answerForExistingBatch(context, existing, requestHash)
  }
  if (error instanceof DuplicateReference) {
    const index = input.items.findIndex((item) => item.merchantReference === error.existing.merchantReference)
    throw new ApiError(
      'duplicate_merchant_reference',
      `items[${index}].merchantReference ${error.existing.merchantReference} already names disbursement ${error.existing.token}; each item needs a new merchantReference.`,
      [
        {
          field: `items[${index}].merchantReference`,
          code: 'duplicate',
          message: `${error.existing.merchantReference} already names disbursement ${error.existing.token}.`,
        },
      ],
      undefined,
      { token: error.existing.token },
    )
  }
  if (error instanceof InsufficientBalance) {
    const { currency, availableMinor } = error.refused
    const total = input.items.reduce((sum, item) => sum + item.amount, 0)
    throw balanceRefusal(currency, availableMinor, undefined, total)
  }
  throw error
}

/** Each item priced as a disbursement; every fault of every item is named, `items[i].field`. */
async function draftItems(
  context: AppContext,
  principal: Principal,
  input: PayoutBatchInput,
  token: string,
): Promise<Operation[]> {
  const errors: FieldError[] = []
  const drafts: Operation[] = []
  const seen = new Map<string, number>()
  const descriptor = statementDescriptorOf(principal.merchantName)
  for (const [index, item] of input.items.entries()) {
    const earlier = seen.get(item.merchantReference)
    if (earlier !== undefined)
      errors.push({
        field: `items[${index}].merchantReference`,
        code: 'duplicate',
        message: `items[${index}].merchantReference repeats items[${earlier}]'s; each item needs its own.`,
      })
    seen.set(item.merchantReference, index)
    try {
      const sides = await priceSides(context, principal, payoutBatchItemKind, item as unknown as Initiation)
      for (const side of sides) {
        side.batch = { token }
        side.queuedInBatch = true
        if (descriptor) side.statementDescriptor = descriptor
      }
      drafts.push(
        newOperationDraft(principal, payoutBatchItemKind, {
          merchantReference: item.merchantReference,
          requestHash: hashRequest(item as unknown as Initiation),
          sides,
          urls: { callbackUrl: item.callbackUrl ?? input.callbackUrl ?? null },
          metadata: item.metadata,
        }),
      )
    } catch (refusal) {
      if (!(refusal instanceof ApiError)) throw refusal
      errors.push(...itemErrors(index, refusal))
    }
  }
  const first = drafts[0]
  for (const [index, draft] of drafts.entries())
    if (first && errors.length === 0 && draft.currency !== first.currency)
      errors.push({
        field: `items[${index}].country`,
        code: 'currency_mismatch',
        message: `A batch pays in one currency: items[0] pays in ${first.currency}, items[${index}] in ${draft.currency}; send a batch per currency.`,
      })
  if (errors.length > 0) throw validationFailed(errors)
  return drafts
}

function itemErrors(index: number, refusal: ApiError): FieldError[] {
  const errors = refusal.errors ?? [{ field: '', code: refusal.code, message: refusal.message }]
  return errors.map((error) => ({
    field: error.field ? `items[${index}].${error.field}` : `items[${index}]`,
    code: error.code,
    message: `items[${index}]: ${error.message}`,
  }))
}

/** The total of the items' cash amounts must be available at once. */
async function refuseBeyondBalance(
  context: AppContext,
  principal: Principal,
  currency: string,
  totalMinor: number,
): Promise<void> {
  const balances = await context.store.ledger.balances(principal.merchantId, principal.mode)
  const availableMinor = balances.find((balance) => balance.currency === currency)?.availableMinor ?? 0
  if (availableMinor < totalMinor) throw balanceRefusal(currency, availableMinor, totalMinor)
}

function balanceRefusal(
  currency: string,
  availableMinor: number,
  totalMinor?: number,
  totalAmount?: number,
): ApiError {
  const major = (minor: number) => toMajorUnits(minor, currency as never)
  const total = totalMinor === undefined ? totalAmount : major(totalMinor)
  const available = major(availableMinor)
  return new ApiError(
    'insufficient_balance',
    `The batch needs ${total} ${currency} (its items' cash amounts), and the available ${currency} balance is ${available}; pay out less, or fund the balance first.`,
    [
      {
        field: 'items',
        code: 'insufficient_balance',
        message: `The items' cash amounts total ${total} ${currency}; ${available} ${currency} is available.`,
      },
    ],
    undefined,
    { total: total ?? 0, available },
  )
}
