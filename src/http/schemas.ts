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

const httpUrl = Type.String({ maxLength: 2048, pattern: '^https?://[^\\s]+$', format: 'uri' })

export const CustomerInput = Type.Object(
  {
    fullName: Type.Optional(Type.String({ maxLength: 100 })),
    phoneNumber: Type.String({
      pattern: '^\\+?[0-9]{8,15}$',
      description:
        '8 to 15 digits, optional leading +. Read for the side’s country: national form or international; recorded in E.164 (+225...). Another country’s calling code is a 422',
    }),
    email: Type.Optional(Type.String({ format: 'email', maxLength: 254 })),
  },
  { additionalProperties: false },
)

const sideFields = {
  amount: Type.Number({
    exclusiveMinimum: 0,
    maximum: 1e12,
    description: 'Major units of the country\u2019s currency',
  }),
  channel: Type.String({
    minLength: 1,
    maxLength: 40,
    pattern: '^[a-z0-9-]+$',
    description: 'Operator code, see GET /api/v1/channels',
  }),
  country: Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2' }),
  customer: CustomerInput,
}

const urlFields = {
  pendingUrl: Type.Optional(httpUrl),
  succeededUrl: Type.Optional(httpUrl),
  failedUrl: Type.Optional(httpUrl),
  canceledUrl: Type.Optional(httpUrl),
  errorUrl: Type.Optional(httpUrl),
  callbackUrl: httpUrl,
}

const merchantReference = Type.String({
  minLength: 1,
  maxLength: 64,
  // No control, format or separator characters. Written with plain escapes rather than \p{C}, so
  // every regex engine that reads the OpenAPI document (code generators, linters) agrees.
  pattern: '^[^\\u0000-\\u001F\\u007F-\\u009F\\u00AD\\u200B-\\u200F\\u2028-\\u202E\\u2060-\\u206F\\uFEFF]+$',
  description: 'Unique per merchant, mode and kind; 1 to 64 printable characters',
})

const SideInput = Type.Object(sideFields, { additionalProperties: false })

/** CONTRACT.md, Errors: at most 20 keys of 1 to 40 characters, string values of at most 500. */
const Metadata = Type.Record(Type.String({ minLength: 1, maxLength: 40 }), Type.String({ maxLength: 500 }), {
  maxProperties: 20,
  propertyNames: { minLength: 1, maxLength: 40 },
  description:
    'Your own key-value pairs (at most 20 keys of 1 to 40 characters, string values of at most 500), returned on the record and its callbacks',
})

/** A single-sided kind takes its side's fields at the top; a kind with named sides takes each under its role. */
export function initiationBodyOf(kind: OperationKind) {
  const sides = isSingleSided(kind)
    ? sideFields
    : Object.fromEntries(sideRolesOf(kind).map((role) => [role, SideInput]))
  return Type.Object(
    { ...sides, merchantReference, ...urlFields, metadata: Type.Optional(Metadata) },
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
    callbackUrl: Type.Optional(httpUrl),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
)
export type RefundBody = Static<typeof RefundBody>

export const TokenParams = Type.Object({ token: Type.String({ pattern: tokenPattern }) })

const pageQuery = {
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000_000, default: 1 })),
  perPage: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 10 })),
}
const dateQuery = {
  from: Type.Optional(Type.String({ maxLength: 40, description: 'ISO 8601, inclusive, on the date' })),
  to: Type.Optional(Type.String({ maxLength: 40, description: 'ISO 8601, exclusive, on the date' })),
}

export const OperationListQuery = Type.Object(
  {
    ...pageQuery,
    status: Type.Optional(literalUnion(statuses)),
    merchantReference: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    // A leading space is a + that form decoding turned into one (`?phoneNumber=+225...` unencoded).
    phoneNumber: Type.Optional(
      Type.String({
        pattern: '^[+ ]?[0-9]{8,15}$',
        description:
          'Matches either side’s customer, in any form: read for the `country` filter when given (national form accepted), as international (+ or calling code first) otherwise',
      }),
    ),
    channel: Type.Optional(Type.String({ minLength: 1, maxLength: 40 })),
    country: Type.Optional(Type.String({ pattern: '^[A-Z]{2}$' })),
    ...dateQuery,
  },
  { additionalProperties: false },
)

export const TransactionListQuery = Type.Object(
  {
    ...pageQuery,
    type: Type.Optional(literalUnion(['cash-in', 'cash-out', 'reversal'] as const)),
    operation: Type.Optional(literalUnion(operationKindNames)),
    status: Type.Optional(literalUnion(['pending', 'succeeded', 'canceled'] as const)),
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

const Pricing = Type.Object({
  percentageFee: Type.Number(),
  additionalFee: Type.Number(),
  feesAmount: Type.Number(),
  supportedByAccount: Type.Boolean(),
})

const Customer = Type.Object({ fullName: Type.String(), phoneNumber: Type.String(), email: Type.String() })

const FailureReason = Type.Object({ code: Type.String(), message: Type.String() })

const Status = literalUnion(statuses)

const recordTail = {
  merchantReference: Type.String(),
  initiationDate: Type.String({ description: 'UTC, microseconds, trailing Z' }),
  currency: Type.String(),
  failureReason: Type.Optional(FailureReason),
  completionDate: Type.Optional(Type.String()),
  metadata: Type.Optional(Type.Record(Type.String(), Type.String())),
}

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

const singleRecordFields = {
  token: Type.String({ pattern: tokenPattern }),
  status: Status,
  redirectUrl: Type.Optional(
    Type.String({ description: 'The hosted checkout page, when the customer must decide there' }),
  ),
  amount: Type.Number(),
  pricing: Pricing,
  cashAmount: Type.Number(),
  transactionAmount: Type.Number(),
  customer: Customer,
  ...recordTail,
  channel: Type.String(),
  country: Type.String(),
  ...operatorReference,
}

const SideRecord = Type.Object({
  amount: Type.Number(),
  pricing: Pricing,
  cashAmount: Type.Number(),
  transactionAmount: Type.Number(),
  customer: Customer,
  channel: Type.String(),
  country: Type.String(),
  currency: Type.String(),
  status: Status,
  failureReason: Type.Optional(FailureReason),
  ...operatorReference,
})

/**
 * The record of one kind, its `operation` that kind so clients can tell records apart: flat for a
 * single-sided kind, each side under its role otherwise (the spec's Operation and Transfer records).
 */
export function operationRecordOf(kind: OperationKind) {
  const refundedKind = refundedKindOf(kind)
  if (refundedKind) return refundRecordOf(kind, refundedKind)
  const refunds = refundKindFor(kind) ? refundedAmount : {}
  if (isSingleSided(kind))
    return Type.Object({ operation: Type.Literal(kind), ...singleRecordFields, ...refunds })
  return Type.Object({
    operation: Type.Literal(kind),
    token: Type.String({ pattern: tokenPattern }),
    status: Status,
    redirectUrl: Type.Optional(Type.String()),
    ...Object.fromEntries(sideRolesOf(kind).map((role) => [role, SideRecord])),
    ...recordTail,
    ...refunds,
  })
}

/** CONTRACT.md, Refunds: the Refund record, naming the refunded operation's token under its kind. */
function refundRecordOf(kind: OperationKind, refundedKind: OperationKind) {
  return Type.Object({
    operation: Type.Literal(kind),
    token: Type.String({ pattern: tokenPattern }),
    status: Status,
    amount: Type.Number(),
    currency: Type.String(),
    [refundedKind]: Type.String({
      pattern: tokenPattern,
      description: `The refunded ${refundedKind}'s token`,
    }),
    customer: Customer,
    merchantReference: Type.String(),
    initiationDate: Type.String({ description: 'UTC, microseconds, trailing Z' }),
    failureReason: Type.Optional(FailureReason),
    completionDate: Type.Optional(Type.String()),
    channel: Type.String(),
    country: Type.String(),
    metadata: Type.Optional(Type.Record(Type.String(), Type.String())),
    ...operatorReference,
  })
}

export const TransactionRecord = Type.Object({
  reference: Type.String(),
  operation: Type.String(),
  amount: Type.Number(),
  type: literalUnion(['cash-in', 'cash-out', 'reversal'] as const),
  status: literalUnion(['pending', 'succeeded', 'canceled'] as const),
  date: Type.String(),
  currency: Type.String(),
  merchantReference: Type.String({ description: 'Of the operation that moved the money' }),
  token: Type.String({ description: 'Of the operation that moved the money' }),
  balanceAfter: Type.Union([Type.Number(), Type.Null()], {
    description: 'The posted balance after a succeeded row; null for pending and canceled rows',
  }),
})

export const Pagination = Type.Object({
  total: Type.Integer(),
  perPage: Type.Integer(),
  currentPage: Type.Integer(),
  firstPage: Type.Integer(),
  firstPageUrl: Type.String(),
  pages: Type.Record(Type.String(), Type.String()),
  lastPage: Type.Integer(),
  lastPageUrl: Type.String(),
  nextPageUrl: Type.Union([Type.String(), Type.Null()]),
  previousPageUrl: Type.Union([Type.String(), Type.Null()]),
})

/** `<kind>.<status>`, e.g. collect.succeeded: the type of a callback event. */
export const EventType = Type.Unsafe<`${OperationKind}.${(typeof statuses)[number]}`>(
  Type.Union(
    operationKindNames.flatMap((kind) => statuses.map((status) => Type.Literal(`${kind}.${status}`))),
  ),
)

export function envelope<K extends string, T extends TSchema>(dataKey: K, record: T) {
  return Type.Object(
    {
      success: Type.Boolean(),
      statusCode: Type.Integer(),
      message: Type.String(),
      data: Type.Object({ [dataKey]: record } as Record<K, T>),
    },
    { description: `The record, under data.${dataKey}` },
  )
}

export function listEnvelope<K extends string, T extends TSchema>(dataKey: K, record: T) {
  return Type.Object(
    {
      success: Type.Boolean(),
      statusCode: Type.Integer(),
      message: Type.String(),
      data: Type.Object({ [dataKey]: Type.Array(record) } as Record<K, ReturnType<typeof Type.Array<T>>>),
      meta: Type.Object({ pagination: Pagination }),
    },
    { description: `One page of records, newest first, under data.${dataKey}, with meta.pagination` },
  )
}

export const ErrorEnvelope = Type.Object({
  success: Type.Literal(false),
  statusCode: Type.Integer(),
  code: Type.String(),
  message: Type.String(),
  errors: Type.Optional(
    Type.Array(Type.Object({ field: Type.String(), code: Type.String(), message: Type.String() })),
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
  requestId: Type.String(),
})

export type OperationListQuery = Static<typeof OperationListQuery>
export type TransactionListQuery = Static<typeof TransactionListQuery>
