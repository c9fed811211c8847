import type { Mode, OperationKind } from '../domain/kinds.ts'
import type { Operation } from '../domain/operation.ts'
import { ApiError } from '../errors.ts'
import type { AppContext } from './context.ts'

/** What a merchantReference is unique within: a merchant, a mode and a kind. */
export interface ReferenceKey {
  merchantId: string
  mode: Mode
  kind: OperationKind
  merchantReference: string
}

/**
 * The answer to a request whose merchantReference already names an operation: that operation
 * when the request is the same one again (the same hash), a 409 naming it otherwise.
 */
export function answerForExisting(existing: Operation, requestHash: string): Operation {
  if (existing.requestHash === requestHash) return existing
  throw new ApiError('duplicate_merchant_reference', undefined, undefined, undefined, {
    token: existing.token,
  })
}

/**
 * A request refused before its write (its pricing, its URLs, what is left to refund) is first
 * asked whether its reference already names an operation: a retry is then answered by what its
 * first try made, whatever changed since, and another request under that reference by a 409.
 * Only when the reference is free does the refusal stand. The refusal of an accepted request
 * costs this one read; an accepted one costs none, as the unique key answers at its insert.
 */
export async function answerIfMade(
  context: AppContext,
  key: ReferenceKey,
  requestHash: string,
  refusal: unknown,
): Promise<Operation> {
  if (!(refusal instanceof ApiError) || refusal.status >= 500) throw refusal
  const existing = await context.store.operations.findByReference(
    key.merchantId,
    key.mode,
    key.kind,
    key.merchantReference,
  )
  if (!existing) throw refusal
  return answerForExisting(existing, requestHash)
}
