import { type Static, type TSchema, Type } from 'typebox'
import { tokenPattern } from '../domain/identifiers.ts'
import {
  isSingleSided,
  type OperationKind,
  operationKindNames,
  refundedKindOf,
  refundKindFor,
  sideRolesOf,
} from '../domain/kinds.ts'
import { linkPaymentKind } from '../domain/payment-links.ts'
import { statementDescriptorPattern } from '../domain/statement-descriptor.ts'
import { statuses } from '../domain/status.ts'

/**
 * One definition per shape: the same schema validates a request, types the handler,
 * serialises the response and describes the endpoint in OpenAPI.
 */

const literalUnion = <T extends readonly string[]>(values: T, options: { description?: string } = {}) =>
  Type.Union(
    values.map((value) => Type.Literal(value)),
    options,
  )

// ---- requests (CONTRACT.md, Errors: bounds) ----

export const httpUrl = (description: string) =>
  Type.String({ maxLength: 2048, pattern: '^https?://[^\\s]+$', format: 'uri', description })

export const CustomerInput = Type.Object(
  {
    fullName: Type.Optional(
      Type.String({
        maxLength: 100,
        description: 'The customer’s name, up to 100 characters; passed to operators that take one',
      }),
    ),
    phoneNumber: Type.String({
      pattern: '^\\+?[0-9]{8,15}$',
      description:
        '8 to 15 digits, optional leading +. Read for the side’s country: national form or international; recorded in E.164 (+225...). Another country’s calling code is a 422',
    }),
    email: Type.Optional(
      Type.String({
        format: 'email',
        maxLength: 254,
        description: 'The customer’s email, up to 254 characters',
      }),
    ),
  },
  {
    additionalProperties: false,
    description:
      'The customer whose mobile-money wallet pays (a collect, a recharge) or is paid (a disbursement, a withdraw)',
  },
)

export const sideFields = {
  amount: Type.Number({
    exclusiveMinimum: 0,
    maximum: 1e12,
    description:
      'The amount before fees, in major units of the country\u2019s currency (XOF and XAF have no decimals); within the channel’s limits (GET /api/v1/channels). pricing.supportedByAccount says whether the fee comes on top of it or out of it',
  }),
  channel: Type.String({
    minLength: 1,
    maxLength: 40,
    pattern: '^[a-z0-9-]+$',
    description:
      'The operator code, such as orange-money or mtn-momo; GET /api/v1/channels lists the codes this merchant may use, per country',
  }),
  country: Type.String({
    pattern: '^[A-Z]{2}$',
    description:
      'ISO 3166-1 alpha-2, such as CI; it sets the currency (CI: XOF, CM: XAF, GH: GHS, KE: KES, UG: UGX)',
  }),
  customer: CustomerInput,
}

/** Where the hosted checkout sends the customer's browser once the operation has this status. */
const outcomeUrl = (status: string) =>
  Type.Optional(
    httpUrl(
      `Where the hosted checkout page sends the customer’s browser when the operation is ${status}, with token, merchantReference and status in the query. A redirect never settles money: read the record, or wait for the callback`,
    ),
  )

const urlFields = {
  pendingUrl: outcomeUrl('still pending'),
  succeededUrl: outcomeUrl('succeeded'),
  failedUrl: outcomeUrl('failed'),
  canceledUrl: outcomeUrl('canceled'),
  errorUrl: outcomeUrl('in error'),
  callbackUrl: httpUrl(
    'Where each status the operation takes is POSTed as a signed event (Standard Webhooks). In live mode a loopback, private or link-local host is refused',
  ),
}

export const merchantReference = Type.String({
  minLength: 1,
  maxLength: 64,
  // No control, format or separator characters. Written with plain escapes rather than \p{C}, so
  // every regex engine that reads the OpenAPI document (code generators, linters) agrees.
  pattern: '^[^\\u0000-\\u001F\\u007F-\\u009F\\u00AD\\u200B-\\u200F\\u2028-\\u202E\\u2060-\\u206F\\uFEFF]+$',
  description: 'Unique per merchant, mode and kind; 1 to 64 printable characters',
})

/** The text the customer sees on their phone. */
const statementDescriptor = Type.String({
  pattern: statementDescriptorPattern,
  description:
    "The text your customer sees on their phone for this payment (pawaPay's customer message, MTN MoMo's payer message, Wave's payment reason, Orange Money's merchant name): 4 to 22 letters, digits or spaces. Absent: your merchant name, its accents dropped and cut to fit",
})

const SideInput = Type.Object(sideFields, {
  additionalProperties: false,
  description:
    'One side of the transfer: from is collected from its customer (priced as a collect), to is paid out to its customer (priced as a disbursement) once from succeeded; both sides share a currency',
})

/** CONTRACT.md, Errors: at most 20 keys of 1 to 40 characters, string values of at most 500. */
export const Metadata = Type.Record(
  Type.String({ minLength: 1, maxLength: 40 }),
  Type.String({ maxLength: 500 }),
  {
    maxProperties: 20,
    propertyNames: { minLength: 1, maxLength: 40 },
    description:
      'Your own key-value pairs (at most 20 keys of 1 to 40 characters, string values of at most 500), returned on the record and its callbacks',
  },
)

/** A single-sided kind takes its side's fields at the top; a kind with named sides takes each under its role. */
export function initiationBodyOf(kind: OperationKind) {
  const sides = isSingleSided(kind)
    ? sideFields
    : Object.fromEntries(sideRolesOf(kind).map((role) => [role, SideInput]))
  return Type.Object(
    {
      ...sides,
      merchantReference,
      ...urlFields,
      metadata: Type.Optional(Metadata),
      statementDescriptor: Type.Optional(statementDescriptor),
    },
    { additionalProperties: false },
  )
}

/** CONTRACT.md, Refunds: the amount defaults to what is left to refund; the callbackUrl to the refunded operation's. */
export const RefundBody = Type.Object(
  {
    merchantReference,
    amount: Type.Optional(
      Type.Number({
        exclusiveMinimum: 0,
        maximum: 1e12,
        description: 'Major units; what is left to refund when absent',
      }),
    ),
    callbackUrl: Type.Optional(
      httpUrl('Where the refund’s statuses are POSTed; the refunded operation’s callbackUrl when absent'),
    ),
    metadata: Type.Optional(Metadata),
    statementDescriptor: Type.Optional(statementDescriptor),
  },
  { additionalProperties: false },
)
export type RefundBody = Static<typeof RefundBody>

const tokenDescription =
  'The operation’s token, issued by Sika: five groups of five lower-case letters and digits joined by hyphens'

export const TokenParams = Type.Object({
  token: Type.String({ pattern: tokenPattern, description: tokenDescription }),
})

export const pageQuery = {
  page: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 1_000_000_000,
      default: 1,
      description: 'The page, from 1; a page past the end is an empty list with the true total',
    }),
  ),
  perPage: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 100, default: 10, description: 'Records per page, 1 to 100' }),
  ),
}
const dateQuery = {
  from: Type.Optional(Type.String({ maxLength: 40, description: 'ISO 8601, inclusive, on the date' })),
  to: Type.Optional(Type.String({ maxLength: 40, description: 'ISO 8601, exclusive, on the date' })),
}

export const OperationListQuery = Type.Object(
  {
    ...pageQuery,
    status: Type.Optional(literalUnion(statuses, { description: 'Only the operations with this status' })),
    merchantReference: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: 'Only the operation with this merchantReference',
      }),
    ),
    // A leading space is a + that form decoding turned into one (`?phoneNumber=+225...` unencoded).
    phoneNumber: Type.Optional(
      Type.String({
        pattern: '^[+ ]?[0-9]{8,15}$',
        description:
          'Matches either side’s customer, in any form: read for the `country` filter when given (national form accepted), as international (+ or calling code first) otherwise',
      }),
    ),
    channel: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 40,
        description: 'Only the operations on this channel (on either side of a transfer)',
      }),
    ),
    country: Type.Optional(
      Type.String({
        pattern: '^[A-Z]{2}$',
        description: 'Only the operations in this country (on either side of a transfer)',
      }),
    ),
    ...dateQuery,
    batch: Type.Optional(
      Type.String({ pattern: tokenPattern, description: 'Only the items of this payout batch (its token)' }),
    ),
  },
  { additionalProperties: false },
)

/** A collect's list also filters on the payment link paid through. */
export const CollectListQuery = Type.Object(
  {
    ...OperationListQuery.properties,
    paymentLink: Type.Optional(
      Type.String({
        pattern: tokenPattern,
        description: 'Only the collects paid through the payment link with this token',
      }),
    ),
  },
  { additionalProperties: false },
)

export const TransactionListQuery = Type.Object(
  {
    ...pageQuery,
    type: Type.Optional(
      literalUnion(['cash-in', 'cash-out', 'reversal'] as const, {
        description: 'Only the movements of this type',
      }),
    ),
    operation: Type.Optional(
      literalUnion(operationKindNames, { description: 'Only the movements of this kind of operation' }),
    ),
    status: Type.Optional(
      literalUnion(['pending', 'succeeded', 'canceled'] as const, {
        description:
          'Only the movements with this status: pending (a hold), succeeded (posted), canceled (released)',
      }),
    ),
    ...dateQuery,
    format: Type.Optional(
      literalUnion(['json', 'csv'] as const, {
        description:
          "csv: every row the filters select, as one streamed CSV statement, without pagination; a text cell starting with =, +, -, @, a tab or a carriage return is written with a leading ' (a spreadsheet would read it as a formula)",
      }),
    ),
  },
  { additionalProperties: false },
)

// ---- responses ----

/** The fee fields, described once: the record's pricing and a channel's prices say the same. */
export const feeFields = {
  percentageFee: Type.Number({ description: 'The fee’s percentage of the amount: 1.5 means 1.5 %' }),
  additionalFee: Type.Number({
    description: 'A fixed part of the fee, in major units of the currency, added to the percentage',
  }),
  supportedByAccount: Type.Boolean({
    description:
      'Who bears the fee; not a permission. true: the merchant’s balance bears it (a collect credits amount - feesAmount; a disbursement takes amount + feesAmount; the customer’s wallet moves by amount). false: the customer bears it (pays amount + feesAmount on a collect; receives amount - feesAmount from a disbursement; the balance moves by amount). With a fee of 0, as on recharges, it changes nothing',
  }),
}

const Pricing = Type.Object(
  {
    percentageFee: feeFields.percentageFee,
    additionalFee: feeFields.additionalFee,
    feesAmount: Type.Number({
      description:
        'The fee: amount × percentageFee / 100 + additionalFee, rounded half up to the currency’s precision',
    }),
    supportedByAccount: feeFields.supportedByAccount,
  },
  { description: 'The fee of this operation (or side) and who bears it' },
)

const Customer = Type.Object(
  {
    fullName: Type.String({ description: 'As sent; empty when none was sent' }),
    phoneNumber: Type.String({ description: 'In international form (E.164, +225...), read for the country' }),
    email: Type.String({ description: 'As sent; empty when none was sent' }),
  },
  { description: 'The customer whose wallet the money moves on' },
)

const FailureReason = Type.Object(
  {
    code: Type.String({
      description:
        'A stable reason to branch on, such as insufficient_funds, customer_declined, operator_unavailable or expired',
    }),
    message: Type.String({ description: 'The reason in words, for a person' }),
  },
  { description: 'Why it did not succeed: present once failed, canceled or error' },
)

const Status = literalUnion(statuses, {
  description:
    'pending until it ends; then, once and for good, succeeded, failed (declined: funds, limits, unknown account), canceled (the customer refused, or it expired) or error (a technical failure: no money moved)',
})

const initiationDate = Type.String({
  description: 'When it was initiated: ISO 8601 in UTC with microseconds and a trailing Z',
})
const completionDate = Type.Optional(
  Type.String({ description: 'When it took its final status (as initiationDate); absent while pending' }),
)
const currency = Type.String({ description: 'The currency of its country (ISO 4217: XOF, XAF, GHS...)' })
export const recordMetadata = Type.Optional(
  Type.Record(Type.String(), Type.String(), { description: 'The metadata sent at initiation' }),
)
const merchantReferenceSent = Type.String({ description: 'Your reference, as sent at initiation' })

const recordTail = {
  merchantReference: merchantReferenceSent,
  initiationDate,
  currency,
  failureReason: Type.Optional(FailureReason),
  completionDate,
  metadata: recordMetadata,
}

/** The amounts and the channel of one side, described once for flat records and transfer sides. */
const sideAmounts = {
  amount: Type.Number({ description: 'The amount before fees, as sent, in major units' }),
  pricing: Pricing,
  cashAmount: Type.Number({
    description:
      'What moves on the merchant’s balance, in major units: credited on a collect (amount - feesAmount when supportedByAccount is true, amount otherwise), taken on a disbursement or withdraw (amount + feesAmount when true, amount otherwise)',
  }),
  transactionAmount: Type.Number({
    description:
      'What moves on the customer’s wallet, in major units: paid on a collect (amount when supportedByAccount is true, amount + feesAmount otherwise), received from a disbursement (amount when true, amount - feesAmount otherwise). It is what the operator is asked for',
  }),
  customer: Customer,
}
const channelSent = Type.String({ description: 'The channel (operator code), as sent' })
const countrySent = Type.String({ description: 'The country, as sent' })
const operationOf = (kind: OperationKind) =>
  Type.Literal(kind, { description: 'The kind of this record, so that records can be told apart' })
const tokenField = Type.String({
  pattern: tokenPattern,
  description: `${tokenDescription}; read the record back with it`,
})

/** What the refunds of an operation a refund kind refunds claim, in major units. */
const refundedAmount = {
  refundedAmount: Type.Number({
    description: 'What its refunds that are not failed, canceled or error add up to',
  }),
}

const operatorReference = {
  operatorReference: Type.Optional(
    Type.String({
      description:
        'Live mode: the id of this payment at its operator (its transaction id once known, before that the reference Sika submitted it under)',
    }),
  ),
}

const redirectUrl = Type.Optional(
  Type.String({
    description:
      'Where to send the customer while pending: the hosted checkout page, or the operator’s own payment page',
  }),
)

const singleRecordFields = {
  token: tokenField,
  status: Status,
  redirectUrl,
  ...sideAmounts,
  ...recordTail,
  channel: channelSent,
  country: countrySent,
  ...operatorReference,
  batch: Type.Optional(
    Type.String({
      pattern: tokenPattern,
      description: 'On an item of a payout batch: the batch’s token (GET /api/v1/payout-batch/{token})',
    }),
  ),
}

const SideRecord = Type.Object(
  {
    ...sideAmounts,
    channel: channelSent,
    country: countrySent,
    currency,
    status: Status,
    failureReason: Type.Optional(FailureReason),
    ...operatorReference,
  },
  {
    description:
      'One side of the transfer, with its own status: from is collected first, to is paid out once from succeeded',
  },
)

const paymentLinkField = {
  paymentLink: Type.Optional(
    Type.String({
      pattern: tokenPattern,
      description: 'The token of the payment link the customer paid through (absent otherwise)',
    }),
  ),
}

/**
 * The record of one kind, its `operation` that kind so clients can tell records apart: flat for a
 * single-sided kind, each side under its role otherwise (the spec's Operation and Transfer records).
 */
export function operationRecordOf(kind: OperationKind) {
  const refundedKind = refundedKindOf(kind)
  if (refundedKind) return refundRecordOf(kind, refundedKind)
  const refunds = refundKindFor(kind) ? refundedAmount : {}
  const description = `The ${kind}, as its details endpoint answers it`
  const linked = kind === linkPaymentKind ? paymentLinkField : {}
  if (isSingleSided(kind))
    return Type.Object(
      { operation: operationOf(kind), ...singleRecordFields, ...refunds, ...linked },
      { description },
    )
  return Type.Object(
    {
      operation: operationOf(kind),
      token: tokenField,
      status: Type.Unsafe<(typeof statuses)[number]>({
        ...Status,
        description:
          'pending while a side is in flight; succeeded once both sides succeeded; otherwise the status of the side that stopped it',
      }),
      redirectUrl,
      ...Object.fromEntries(sideRolesOf(kind).map((role) => [role, SideRecord])),
      ...recordTail,
      ...refunds,
    },
    { description },
  )
}

/** CONTRACT.md, Refunds: the Refund record, naming the refunded operation's token under its kind. */
function refundRecordOf(kind: OperationKind, refundedKind: OperationKind) {
  return Type.Object(
    {
      operation: operationOf(kind),
      token: tokenField,
      status: Status,
      amount: Type.Number({ description: 'What is paid back, in major units; no fee is charged on it' }),
      currency,
      [refundedKind]: Type.Optional(
        Type.String({
          pattern: tokenPattern,
          description: `The refunded ${refundedKind}'s token (absent on a transfer's customer refund)`,
        }),
      ),
      transfer: Type.Optional(
        Type.String({
          pattern: tokenPattern,
          description:
            "On a customer refund: the live transfer whose to side failed after its from customer paid; the refund pays that customer back through their operator, and its merchantReference is the transfer's token",
        }),
      ),
      customer: Type.Unsafe<Static<typeof Customer>>({
        ...Customer,
        description: `The ${refundedKind}’s customer, who is paid back`,
      }),
      merchantReference: merchantReferenceSent,
      initiationDate,
      failureReason: Type.Optional(FailureReason),
      completionDate,
      channel: Type.String({
        description: `The ${refundedKind}’s channel, through which the money goes back`,
      }),
      country: Type.String({ description: `The ${refundedKind}’s country` }),
      metadata: recordMetadata,
      ...operatorReference,
    },
    { description: `The ${kind}, as its details endpoint answers it` },
  )
}

export const TransactionRecord = Type.Object({
  reference: Type.String({
    description:
      'TX<yyyymmdd>.<first group of the operation’s token>.<8-digit sequence of the merchant>, e.g. TX20261121.k3v9q.00000042',
  }),
  operation: Type.String({ description: 'The kind of operation that moved the money' }),
  amount: Type.Number({ description: 'The cashAmount of that operation (or side), in major units' }),
  type: literalUnion(['cash-in', 'cash-out', 'reversal'] as const, {
    description:
      'cash-in: credited (a collect, a recharge, a transfer’s from side); cash-out: taken (a disbursement, a withdraw, a transfer’s to side); reversal: a refund paying a customer back',
  }),
  status: literalUnion(['pending', 'succeeded', 'canceled'] as const, {
    description:
      'pending: a hold on the balance (a cash-out or refund in flight); succeeded: posted; canceled: a hold released, nothing moved',
  }),
  date: Type.String({ description: 'When the movement was written (as initiationDate)' }),
  currency,
  merchantReference: Type.String({ description: 'Of the operation that moved the money' }),
  token: Type.String({ description: 'Of the operation that moved the money' }),
  balanceAfter: Type.Union([Type.Number(), Type.Null()], {
    description: 'The posted balance after a succeeded row; null for pending and canceled rows',
  }),
})

const pageUrl = (which: string) =>
  `The URL of ${which}, absolute on PUBLIC_BASE_URL, keeping perPage and the filters`

export const Pagination = Type.Object(
  {
    total: Type.Integer({ description: 'How many records the filters select, in all' }),
    perPage: Type.Integer({ description: 'Records per page, as asked (10 by default)' }),
    currentPage: Type.Integer({ description: 'The page answered' }),
    firstPage: Type.Integer({ description: 'Always 1' }),
    firstPageUrl: Type.String({ description: pageUrl('the first page') }),
    pages: Type.Record(Type.String(), Type.String(), {
      description: 'At most the 10 page numbers nearest the current one, each with its URL',
    }),
    lastPage: Type.Integer({ description: 'The last page (1 for an empty list)' }),
    lastPageUrl: Type.String({ description: pageUrl('the last page') }),
    nextPageUrl: Type.Union([Type.String(), Type.Null()], {
      description: `${pageUrl('the next page')}; null on the last page`,
    }),
    previousPageUrl: Type.Union([Type.String(), Type.Null()], {
      description: `${pageUrl('the previous page')}; null on the first page`,
    }),
  },
  { description: 'Where this page is in the list' },
)

/** How a payout batch ends: each has its event. */
const payoutBatchEndings = ['completed', 'rejected', 'canceled'] as const

/** `<kind>.<status>`, e.g. collect.succeeded: the type of a callback event. */
export const EventType = Type.Unsafe<
  `${OperationKind}.${(typeof statuses)[number]}` | `payout_batch.${(typeof payoutBatchEndings)[number]}`
>(
  Type.Union(
    [
      ...operationKindNames.flatMap((kind) => statuses.map((status) => Type.Literal(`${kind}.${status}`))),
      ...payoutBatchEndings.map((status) => Type.Literal(`payout_batch.${status}`)),
    ],
    {
      description:
        '<kind>.<status>: the status the operation took, such as collect.succeeded; payout_batch.<status> when a payout batch ends (it is listed under its first item’s token)',
    },
  ),
)

const success = Type.Boolean({ description: 'true on every answer that succeeded' })
const statusCode = Type.Integer({ description: 'The HTTP status: 200' })
const message = Type.String({ description: 'A short label of the answer, such as "Collect !"' })
const data = (key: string) => ({ description: `Holds the answer under ${key}` })

export function envelope<K extends string, T extends TSchema>(dataKey: K, record: T) {
  return Type.Object(
    {
      success,
      statusCode,
      message,
      data: Type.Object({ [dataKey]: record } as Record<K, T>, data(dataKey)),
    },
    { description: `The record, under data.${dataKey}` },
  )
}

export function listEnvelope<K extends string, T extends TSchema>(dataKey: K, record: T) {
  return Type.Object(
    {
      success,
      statusCode,
      message,
      data: Type.Object(
        {
          [dataKey]: Type.Array(record, { description: 'The records of this page, newest first' }),
        } as Record<K, ReturnType<typeof Type.Array<T>>>,
        data(dataKey),
      ),
      meta: Type.Object({ pagination: Pagination }, { description: 'The pagination of the list' }),
    },
    { description: `One page of records, newest first, under data.${dataKey}, with meta.pagination` },
  )
}

export const ErrorEnvelope = Type.Object({
  success: Type.Literal(false, { description: 'false on every error' }),
  statusCode: Type.Integer({ description: 'The HTTP status, as on the answer' }),
  code: Type.String({
    description: 'A stable code to branch on; the codes of each answer are listed under it',
  }),
  message: Type.String({
    description: 'What is wrong and how to fix it, in words: show it, do not parse it',
  }),
  errors: Type.Optional(
    Type.Array(
      Type.Object(
        {
          field: Type.String({
            description:
              'The field at fault, with its path: amount, customer.phoneNumber, to.channel (body when the body itself is)',
          }),
          code: Type.String({
            description: 'Why, as a stable code: required, invalid_format, unknown_field, unknown_channel...',
          }),
          message: Type.String({ description: 'What that field must be' }),
        },
        { description: 'One field at fault' },
      ),
      { description: 'One entry per field at fault, where fields are at fault (at most 20 are listed)' },
    ),
  ),
  token: Type.Optional(
    Type.String({
      description: 'duplicate_merchant_reference: the token of the operation holding the reference',
    }),
  ),
  collect: Type.Optional(Type.String({ description: 'refund_exceeds_collected: the refunded collect' })),
  leftToRefund: Type.Optional(
    Type.Number({ description: 'refund_exceeds_collected: what is left to refund of it, in major units' }),
  ),
  total: Type.Optional(
    Type.Number({
      description: 'insufficient_balance on a payout batch: its items’ cash amounts, in major units',
    }),
  ),
  available: Type.Optional(
    Type.Number({
      description: 'insufficient_balance on a payout batch: the available balance, in major units',
    }),
  ),
  status: Type.Optional(
    Type.String({ description: 'not_cancelable: the status of what could not be canceled' }),
  ),
  limit: Type.Optional(
    Type.Union([Type.Literal('maxAmount'), Type.Literal('dailyPayoutLimit')], {
      description: 'limit_exceeded: the limit the operation is past',
    }),
  ),
  limitAmount: Type.Optional(
    Type.Number({ description: 'limit_exceeded: the limit, in major units of `currency`' }),
  ),
  left: Type.Optional(
    Type.Number({
      description:
        'limit_exceeded: what is left under the limit, in major units (maxAmount: the largest amount allowed; dailyPayoutLimit: what may still be paid out today, UTC)',
    }),
  ),
  currency: Type.Optional(Type.String({ description: 'limit_exceeded: the currency of the limit' })),
  requestId: Type.String({
    description: 'This request’s id, also in the x-request-id header: quote it when asking about the request',
  }),
})

export type OperationListQuery = Static<typeof OperationListQuery>
export type TransactionListQuery = Static<typeof TransactionListQuery>
