import { type Static, type TSchema, Type } from 'typebox'
import { tokenPattern } from '../domain/identifiers.ts'
import { isSingleSided, type OperationKind, operationKindNames, sideRolesOf } from '../domain/kinds.ts'
import { statuses } from '../domain/status.ts'

/**
 * One definition per shape: the same schema validates a request, types the handler,
 * serialises the response and describes the endpoint in OpenAPI.
 */

const literalUnion = <T extends readonly string[]>(values: T) =>
  Type.Union(values.map((value) => Type.Literal(value)))

// ---- requests (CONTRACT.md, Errors: bounds) ----

const httpUrl = Type.String({ maxLength: 2048, pattern: '^https?://[^\\s]+$', format: 'uri' })

export const CustomerInput = Type.Object(
  {
    fullName: Type.Optional(Type.String({ maxLength: 100 })),
    phoneNumber: Type.String({
      pattern: '^\\+?[0-9]{8,15}$',
      description: '8 to 15 digits, optional leading +',
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

/** A single-sided kind takes its side's fields at the top; a kind with named sides takes each under its role. */
export function initiationBodyOf(kind: OperationKind) {
  const sides = isSingleSided(kind)
    ? sideFields
    : Object.fromEntries(sideRolesOf(kind).map((role) => [role, SideInput]))
  return Type.Object({ ...sides, merchantReference, ...urlFields }, { additionalProperties: false })
}

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
    phoneNumber: Type.Optional(Type.String({ pattern: '^\\+?[0-9]{8,15}$' })),
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
})

/**
 * The record of one kind, its `operation` that kind so clients can tell records apart: flat for a
 * single-sided kind, each side under its role otherwise (the spec's Operation and Transfer records).
 */
export function operationRecordOf(kind: OperationKind) {
  if (isSingleSided(kind)) return Type.Object({ operation: Type.Literal(kind), ...singleRecordFields })
  return Type.Object({
    operation: Type.Literal(kind),
    token: Type.String({ pattern: tokenPattern }),
    status: Status,
    redirectUrl: Type.Optional(Type.String()),
    ...Object.fromEntries(sideRolesOf(kind).map((role) => [role, SideRecord])),
    ...recordTail,
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
  token: Type.String(),
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
  requestId: Type.String(),
})

export type OperationListQuery = Static<typeof OperationListQuery>
export type TransactionListQuery = Static<typeof TransactionListQuery>
