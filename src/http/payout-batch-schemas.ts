import { type Static, Type } from 'typebox'
import { tokenPattern } from '../domain/identifiers.ts'
import { largestPayoutBatch, payoutBatchStatuses } from '../domain/payout-batches.ts'
import { statuses } from '../domain/status.ts'
import { httpUrl, Metadata, merchantReference, pageQuery, sideFields } from './schemas.ts'

/** CONTRACT.md, Payout batches: the request, the record, and the cancel's optional body. */

const PayoutBatchItem = Type.Object(
  {
    ...sideFields,
    merchantReference,
    callbackUrl: Type.Optional(
      httpUrl('Where this payout’s statuses are POSTed; the batch’s callbackUrl when absent'),
    ),
    metadata: Type.Optional(Metadata),
  },
  {
    additionalProperties: false,
    description:
      'One payout: priced and recorded as a disbursement of its own (token, record, callbacks, hold). Its merchantReference must be new among your disbursements',
  },
)

export const PayoutBatchBody = Type.Object(
  {
    merchantReference,
    callbackUrl: Type.Optional(
      httpUrl(
        'Where the batch’s events (payout_batch.completed, .rejected, .canceled) and its items’ disbursement events are POSTed. In live mode a loopback, private or link-local host is refused',
      ),
    ),
    metadata: Type.Optional(Metadata),
    items: Type.Array(PayoutBatchItem, {
      minItems: 1,
      maxItems: largestPayoutBatch,
      description: `1 to ${largestPayoutBatch} payouts, in one currency. A fault in any of them refuses the whole batch, naming it: items[41].customer.phoneNumber`,
    }),
  },
  { additionalProperties: false },
)
export type PayoutBatchBody = Static<typeof PayoutBatchBody>

const count = (status: string) => Type.Integer({ description: `Items ${status}` })

export const PayoutBatchRecord = Type.Object(
  {
    token: Type.String({ pattern: tokenPattern, description: 'The batch’s token, issued by Sika' }),
    merchantReference: Type.String({ description: 'Your reference of the batch, as sent' }),
    status: Type.Union(
      payoutBatchStatuses.map((status) => Type.Literal(status)),
      {
        description:
          'awaiting_approval (a member must approve it), processing (its items go to their operators), completed (every item is final), rejected or canceled (before processing; every hold released)',
      },
    ),
    itemCount: Type.Integer({ description: 'How many payouts the batch carries' }),
    totalAmount: Type.Number({
      description: 'The sum of the items’ cash amounts (amounts with fees), in major units',
    }),
    currency: Type.String({ description: 'The one currency of its items' }),
    counts: Type.Object(
      Object.fromEntries(statuses.map((status) => [status, count(status)])) as Record<
        (typeof statuses)[number],
        ReturnType<typeof count>
      >,
      { description: 'The items counted by status' },
    ),
    createdBy: Type.Optional(
      Type.String({ description: 'Who made it: API, or the dashboard member’s name' }),
    ),
    approvedBy: Type.Optional(Type.String({ description: 'The member who approved it, when one had to' })),
    initiationDate: Type.String({ description: 'When it was accepted: ISO 8601 in UTC with microseconds' }),
    completionDate: Type.Optional(
      Type.String({ description: 'When it completed, or was rejected or canceled; absent before' }),
    ),
    metadata: Type.Optional(Type.Record(Type.String(), Type.String(), { description: 'The metadata sent' })),
  },
  { description: 'A payout batch, as its details endpoint answers it' },
)

export const PayoutBatchListQuery = Type.Object(
  {
    ...pageQuery,
    status: Type.Optional(
      Type.Union(
        payoutBatchStatuses.map((status) => Type.Literal(status)),
        { description: 'Only the batches with this status' },
      ),
    ),
    merchantReference: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, description: 'Only the batch with this merchantReference' }),
    ),
    from: Type.Optional(
      Type.String({ maxLength: 40, description: 'ISO 8601, inclusive, on the initiationDate' }),
    ),
    to: Type.Optional(
      Type.String({ maxLength: 40, description: 'ISO 8601, exclusive, on the initiationDate' }),
    ),
  },
  { additionalProperties: false },
)
export type PayoutBatchListQuery = Static<typeof PayoutBatchListQuery>

export const CancelBody = Type.Object(
  {
    reason: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: 'Why, in your words; kept in failureReason.message',
      }),
    ),
  },
  { additionalProperties: false, description: 'Empty, or a reason' },
)

/** The document's examples of a batch: its request and the answer. */
export const payoutBatchExamples = {
  request: {
    merchantReference: 'salaries-2026-11',
    callbackUrl: 'https://shop.example/sika/callback',
    items: [
      {
        amount: 150000,
        channel: 'orange-money',
        country: 'CI',
        customer: { phoneNumber: '+2250700000101', fullName: 'Awa Kone' },
        merchantReference: 'salary-2026-11-awa',
      },
      {
        amount: 120000,
        channel: 'mtn-momo',
        country: 'CI',
        customer: { phoneNumber: '+2250500000102', fullName: 'Yao Koffi' },
        merchantReference: 'salary-2026-11-yao',
      },
    ],
  },
  record: {
    token: 'k3v9q-7m2xp-a8d4f-q1w2e-r5t6y',
    merchantReference: 'salaries-2026-11',
    status: 'processing',
    itemCount: 2,
    totalAmount: 275400,
    currency: 'XOF',
    counts: { pending: 2, succeeded: 0, failed: 0, canceled: 0, error: 0 },
    createdBy: 'API',
    initiationDate: '2026-11-28T10:00:00.000000Z',
  },
}
