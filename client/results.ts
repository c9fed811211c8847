import type { operations } from './generated/schema.ts'

/**
 * What every client method answers: the value on success, or the failure as a value whose `code`
 * is one the OpenAPI document names for that endpoint. The types are read from the generated
 * schema, so a code added to the server's documentation reaches callers by regenerating, and a
 * code removed from it stops compiling where it is still handled.
 */
export type SikaResult<T, Operation> =
  | { readonly ok: true; readonly data: T; readonly status: number; readonly requestId: string | null }
  | { readonly ok: false; readonly error: SikaFailure<Operation> }

export type SikaFailure<Operation> = ApiFailure<Operation> | ClientFailure

type ResponsesOf<Operation> = Operation extends { responses: infer Responses } ? Responses : never
type JsonOf<Response> = Response extends { content: { 'application/json': infer Body } } ? Body : never
type SuccessStatus = 200 | 201 | 202 | 203 | 204 | 205 | 206
type ErrorStatusOf<Operation> = Exclude<keyof ResponsesOf<Operation>, SuccessStatus>

/** The JSON body of an endpoint's 200 answer. */
export type SuccessBody<Operation> = JsonOf<ResponsesOf<Operation>[200 & keyof ResponsesOf<Operation>]>

/** The JSON body of an endpoint's request. */
export type RequestBody<Operation> = Operation extends {
  requestBody: { content: { 'application/json': infer Body } }
}
  ? Body
  : never

/** An endpoint's query parameters (page, perPage and the filters). */
export type QueryOf<Operation> = Operation extends { parameters: { query?: infer Query } }
  ? NonNullable<Query>
  : never

/**
 * One error answer the document describes for the endpoint: its status with the codes that
 * status may carry, so narrowing on `code` also narrows `status`.
 */
export type ApiFailure<Operation> = {
  [Status in ErrorStatusOf<Operation>]: FailureFromEnvelope<Status, JsonOf<ResponsesOf<Operation>[Status]>>
}[ErrorStatusOf<Operation>]

type FailureFromEnvelope<Status, Envelope> = Envelope extends { code: infer Code; message: string }
  ? {
      readonly status: Status
      readonly code: Code
      readonly message: string
      readonly errors?: Envelope extends { errors?: infer Errors } ? Errors : never
      readonly requestId: string
    }
  : never

/** What the client itself reports: no answer at all, or one the document does not describe. */
export interface ClientFailure {
  /** 0 when no answer arrived. */
  readonly status: number
  readonly code: ClientFailureCode
  readonly message: string
  readonly requestId?: string
}

export const clientFailureCodes = ['network_error', 'unexpected_response'] as const
export type ClientFailureCode = (typeof clientFailureCodes)[number]

/** The codes one endpoint may answer with, as its documentation lists them. */
export type ErrorCodeOf<Operation> = Operation extends unknown ? ApiFailure<Operation>['code'] : never

type ApiOperation = {
  [Id in keyof operations]: Id extends 'health' | 'ready' | 'receiveOperationStatus' ? never : operations[Id]
}[keyof operations]

/** Every error code the /api/v1 endpoints document. */
export type SikaErrorCode = ErrorCodeOf<ApiOperation>

/** Thrown by the page iterators, which cannot answer a value mid-loop: it carries the typed failure. */
export class SikaRequestError<Operation = unknown> extends Error {
  override readonly name = 'SikaRequestError'
  constructor(readonly failure: SikaFailure<Operation>) {
    super(`${String(failure.status)} ${String(failure.code)}: ${failure.message}`)
  }
}

/** What openapi-fetch answers for one call. */
export interface FetchOutcome {
  data?: unknown
  error?: unknown
  response: Response
}

/**
 * Turns one openapi-fetch call into a result. A failure body in Sika's error envelope is taken
 * as documented (the drift test keeps the document equal to the server's schemas); anything else,
 * such as a proxy's HTML page, is an `unexpected_response`, and a request that got no answer a
 * `network_error`. An abort is the caller's own decision, so it is rethrown, not reported.
 */
export async function toResult<Operation, T>(
  call: Promise<FetchOutcome>,
  pick: (body: SuccessBody<Operation>) => T,
): Promise<SikaResult<T, Operation>> {
  let outcome: FetchOutcome
  try {
    outcome = await call
  } catch (error) {
    if (error instanceof Error && error.name === 'AbortError') throw error
    const message = error instanceof Error ? describeNetworkError(error) : String(error)
    return { ok: false, error: { status: 0, code: 'network_error', message } }
  }
  const { response } = outcome
  const requestId = response.headers.get('x-request-id')
  if (response.status === 200 && outcome.data !== undefined) {
    return { ok: true, data: pick(outcome.data as SuccessBody<Operation>), status: 200, requestId }
  }
  if (!response.ok && isErrorEnvelope(outcome.error, response.status)) {
    const { success: _success, statusCode: _statusCode, ...failure } = outcome.error
    return { ok: false, error: { status: response.status, ...failure } as ApiFailure<Operation> }
  }
  return {
    ok: false,
    error: {
      status: response.status,
      code: 'unexpected_response',
      message: `HTTP ${response.status}: the answer is not one the Sika API documents`,
      ...(requestId === null ? {} : { requestId }),
    },
  }
}

interface ErrorEnvelope {
  success: false
  statusCode: number
  code: string
  message: string
  errors?: unknown[]
  requestId: string
}

function isErrorEnvelope(body: unknown, status: number): body is ErrorEnvelope {
  if (typeof body !== 'object' || body === null) return false
  const envelope = body as Record<string, unknown>
  return (
    envelope.success === false &&
    envelope.statusCode === status &&
    typeof envelope.code === 'string' &&
    typeof envelope.message === 'string' &&
    typeof envelope.requestId === 'string' &&
    (envelope.errors === undefined || Array.isArray(envelope.errors))
  )
}

/** fetch() says only "fetch failed"; the cause says which (refused, reset, unknown host...). */
function describeNetworkError(error: Error): string {
  const cause = (error as { cause?: unknown }).cause
  return cause instanceof Error ? `${error.message}: ${cause.message}` : error.message
}
