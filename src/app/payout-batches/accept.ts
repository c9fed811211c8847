import { newOperationToken } from '../../domain/identifiers.ts'
import { toMajorUnits } from '../../domain/money.ts'
import type { Metadata, Operation, Side } from '../../domain/operation.ts'
import { type PayoutBatch, payoutBatchItemKind } from '../../domain/payout-batches.ts'
import { statementDescriptorOf } from '../../domain/statement-descriptor.ts'
import { ApiError, type FieldError, validationFailed } from '../../errors.ts'
import { forbiddenHostReason } from '../../events/ssrf.ts'
import type { NewPayoutBatch } from '../../store/repositories/payout-batches.ts'
import type { AppContext } from '../context.ts'
import { hashRequest, type Initiation, newOperationDraft } from '../initiate.ts'
import {
  controlsFor,
  dailyLimitExceeded,
  dailyPayoutLimitOf,
  refuseAboveMaxAmount,
  refusePausedPayouts,
} from '../merchant-controls.ts'
import { type CustomerInput, priceEachInTurns } from '../price-sides.ts'
import type { Principal } from '../principal.ts'
import { executeWrites, type WriteSteps } from '../write-pipeline.ts'
import { DailyPayoutLimitExceeded, DuplicateReference, InsufficientBalance } from '../write-refusals.ts'
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

/**
 * The batch's reference was taken by a concurrent request while this one was written: the batch
 * it made, as this write's transaction read it (with SQLite's group commit the two may share a
 * group, so a read outside it could not see that batch yet).
 */
class BatchReferenceTaken extends Error {
  constructor(readonly existing?: PayoutBatchView) {
    super('the payout batch reference is taken')
  }
}

/**
 * A write refused because its reference or its items' were taken: when a batch under its own
 * reference made them, the refusal carries that batch.
 */
async function batchTakenWithin(steps: WriteSteps, batch: NewPayoutBatch, error: unknown): Promise<unknown> {
  if (!(error instanceof DuplicateReference) && !(error instanceof BatchReferenceTaken)) return error
  const existing = await steps.tx.payoutBatches.findByReference(
    batch.merchantId,
    batch.mode,
    batch.merchantReference,
  )
  if (!existing) return error
  const counts = await steps.tx.payoutBatches.counts([existing.id])
  return new BatchReferenceTaken({ batch: existing, counts: counts.get(existing.id)! })
}

/**
 * Accepts a payout batch in one transaction, all or nothing: every item priced as a disbursement
 * (a 422 naming `items[i]` otherwise), one currency, the total held (each item's own hold), each
 * item an ordinary disbursement queued in the batch. The batch's merchantReference is idempotent.
 *
 * Its work is long (a thousand items priced, drafted, written) and takes turns with the other long
 * work of the process (`LongWorkTurns`): its items priced and drafted a chunk a turn, its request
 * hashed in a turn, its write in a turn, so that other merchants' requests are answered in between.
 */
export async function acceptPayoutBatch(
  context: AppContext,
  principal: Principal,
  input: PayoutBatchInput,
  origin: PayoutBatchOrigin,
): Promise<PayoutBatchView> {
  const inTurn = <T>(work: () => Promise<T> | T) => context.longWork.run(principal, async () => work())
  const hashOfInput = () => inTurn(() => hashRequest(input as unknown as Initiation))
  const existing = await context.store.payoutBatches.findByReference(
    principal.merchantId,
    principal.mode,
    input.merchantReference,
  )
  if (existing) return answerForExistingBatch(context, existing, await hashOfInput())
  const controls = await controlsFor(context, principal)
  refusePausedPayouts(controls)
  const priced = await checkItems(
    principal,
    input,
    await priceEachInTurns(context, principal, payoutBatchItemKind, input.items as unknown as Initiation[]),
  )
  for (const [index, sides] of priced.entries())
    refuseAboveMaxAmount(controls, principal.mode, [
      { field: `items[${index}].amount`, currency: sides[0]!.currency, amountMinor: sides[0]!.amountMinor },
    ])
  const currency = priced[0]![0]!.currency
  const dailyPayoutLimitMinor = dailyPayoutLimitOf(controls, currency)
  const totalMinor = priced.reduce((total, sides) => total + sides[0]!.cashAmountMinor, 0)
  await refuseBeyondBalance(context, principal, currency, totalMinor)
  const token = newOperationToken()
  const drafts: Operation[] = []
  for (let from = 0; from < priced.length; from += itemsPerTurn)
    drafts.push(...(await inTurn(() => draftsOf(principal, input, token, priced, from))))
  const requestHash = await hashOfInput()
  const awaits =
    origin.kind === 'member' || (await context.store.payoutBatches.requiresApproval(principal.merchantId))
  const fields = (initiatedAtUs: number): NewPayoutBatch => ({
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
    firstOperationId: 0,
    initiatedAtUs,
  })
  try {
    const batch = await inTurn(() =>
      executeWrites(context, (steps) =>
        writeBatch(steps, fields(steps.nowUs), drafts, dailyPayoutLimitMinor),
      ),
    )
    return countedView(context, batch)
  } catch (error) {
    return answerWriteRefusal(context, principal, input, { requestHash, totalMinor }, error)
  }
}

/** Items drafted in one turn of long work: a few milliseconds of the event loop. */
const itemsPerTurn = 250

/**
 * The items opened queued, then the batch row (its unique index decides a race) and its item
 * list. A refusal for a taken reference carries the batch that took it, when one did.
 */
async function writeBatch(
  steps: WriteSteps,
  fields: NewPayoutBatch,
  drafts: Operation[],
  dailyPayoutLimitMinor: number | undefined,
): Promise<PayoutBatch> {
  try {
    const opened = await steps.openQueuedAll(drafts, dailyPayoutLimitMinor)
    const batch = { ...fields, firstOperationId: opened[0]!.id }
    const id = await steps.tx.payoutBatches.insertIfNew(batch)
    if (id === undefined) throw new BatchReferenceTaken()
    await steps.tx.payoutBatches.insertItems(
      id,
      opened.map((operation) => operation.id),
    )
    return { ...batch, id, completedAtUs: null, approvedBy: null }
  } catch (error) {
    throw await batchTakenWithin(steps, fields, error)
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

/**
 * A refusal at write time. A concurrent request with the same batch reference may have won the
 * race: its items' references then refuse this one's first item, or its batch row this one's. So
 * the batch is looked up first, and an identical replay answers the batch the winner made.
 */
async function answerWriteRefusal(
  context: AppContext,
  principal: Principal,
  input: PayoutBatchInput,
  { requestHash, totalMinor }: { requestHash: string; totalMinor: number },
  error: unknown,
): Promise<PayoutBatchView> {
  const refusal =
    error instanceof BatchReferenceTaken ||
    error instanceof DuplicateReference ||
    error instanceof InsufficientBalance ||
    error instanceof DailyPayoutLimitExceeded
  if (!refusal) throw error
  if (error instanceof BatchReferenceTaken && error.existing) {
    const { batch, counts } = error.existing
    if (batch.requestHash === requestHash) return { batch, counts }
    return answerForExistingBatch(context, batch, requestHash)
  }
  const existing = await context.store.payoutBatches.findByReference(
    principal.merchantId,
    principal.mode,
    input.merchantReference,
  )
  if (existing) return answerForExistingBatch(context, existing, requestHash)
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
    throw balanceRefusal(currency, availableMinor, totalMinor)
  }
  if (error instanceof DailyPayoutLimitExceeded)
    throw dailyLimitExceeded(principal.mode, error.currency, error)
  throw error
}

/**
 * Every item priced as a disbursement (in one pass: no read per item), its reference new within
 * the batch, all in one currency, and in live mode its callbackUrl public; every fault of every
 * item is named, `items[i].field`. Checked before the balance, as one initiation is.
 */
async function checkItems(
  principal: Principal,
  input: PayoutBatchInput,
  priced: readonly (Side[] | ApiError)[],
): Promise<Side[][]> {
  const errors: FieldError[] = []
  const seen = new Map<string, number>()
  for (const [index, item] of input.items.entries()) {
    const earlier = seen.get(item.merchantReference)
    if (earlier !== undefined)
      errors.push({
        field: `items[${index}].merchantReference`,
        code: 'duplicate',
        message: `items[${index}].merchantReference repeats items[${earlier}]'s; each item needs its own.`,
      })
    seen.set(item.merchantReference, index)
    const sides = priced[index]!
    if (sides instanceof ApiError) errors.push(...itemErrors(index, sides))
  }
  const good = priced.filter((sides): sides is Side[] => !(sides instanceof ApiError))
  const first = good[0]?.[0]
  if (first && errors.length === 0)
    for (const [index, sides] of good.entries())
      if (sides[0]!.currency !== first.currency)
        errors.push({
          field: `items[${index}].country`,
          code: 'currency_mismatch',
          message: `A batch pays in one currency: items[0] pays in ${first.currency}, items[${index}] in ${sides[0]!.currency}; send a batch per currency.`,
        })
  if (principal.mode === 'live') errors.push(...(await internalUrlErrors(input)))
  if (errors.length > 0) throw validationFailed(errors)
  return good
}

/**
 * Each item an ordinary disbursement, queued in the batch, from `from` on (a turn's worth):
 * drafted only once the batch is to be written.
 */
function draftsOf(
  principal: Principal,
  input: PayoutBatchInput,
  token: string,
  priced: readonly Side[][],
  from: number,
): Operation[] {
  const descriptor = statementDescriptorOf(principal.merchantName)
  return input.items.slice(from, from + itemsPerTurn).map((item, offset) => {
    const sides = priced[from + offset]!
    for (const side of sides) {
      side.batch = { token }
      side.queuedInBatch = true
      if (descriptor) side.statementDescriptor = descriptor
    }
    return newOperationDraft(principal, payoutBatchItemKind, {
      merchantReference: item.merchantReference,
      requestHash: hashRequest(item as unknown as Initiation),
      sides,
      urls: { callbackUrl: item.callbackUrl ?? input.callbackUrl ?? null },
      metadata: item.metadata,
    })
  })
}

/** CONTRACT.md, Callbacks: in live mode the batch's and every item's callbackUrl must reach a public address. */
async function internalUrlErrors(input: PayoutBatchInput): Promise<FieldError[]> {
  const named = [
    { field: 'callbackUrl', url: input.callbackUrl },
    ...input.items.map((item, index) => ({ field: `items[${index}].callbackUrl`, url: item.callbackUrl })),
  ]
  const errors: FieldError[] = []
  // Items often share one URL: each is looked up once.
  const reasons = new Map<string, Promise<string | undefined>>()
  for (const { field, url } of named) {
    if (url && !reasons.has(url)) reasons.set(url, forbiddenHostReason(url))
    const reason = url ? await reasons.get(url) : undefined
    if (reason)
      errors.push({
        field,
        code: 'forbidden_host',
        message: `${field} must reach a public address: ${reason}.`,
      })
  }
  return errors
}

function itemErrors(index: number, refusal: ApiError): FieldError[] {
  const errors = refusal.errors ?? [{ field: '', code: refusal.code, message: refusal.message }]
  return errors.map((error) => ({
    field: error.field ? `items[${index}].${error.field}` : `items[${index}]`,
    code: error.code,
    message: `items[${index}]: ${error.message}`,
  }))
}

/**
 * The total of the items' cash amounts must be available at once: a batch refused here has cost
 * one pass of pricing and one read, and no item is drafted (no token, no hash) or written.
 */
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

function balanceRefusal(currency: string, availableMinor: number, totalMinor: number): ApiError {
  const major = (minor: number) => toMajorUnits(minor, currency as never)
  const total = major(totalMinor)
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
    { total, available },
  )
}
