import type { OperationKind } from '../domain/kinds.ts'
import type { Operation } from '../domain/operation.ts'
import type { Page, PageRequest } from '../domain/pages.ts'
import { phoneNumberFilter } from '../domain/phone-numbers.ts'
import { ApiError } from '../errors.ts'
import type { OperationFilters } from '../store/repositories/operations.ts'
import type { AppContext } from './context.ts'
import type { Principal } from './principal.ts'

export type { OperationFilters }

/** Another merchant's token, the other mode's, another kind's, or an unknown one: the same 404. */
export async function findOperation(
  context: AppContext,
  principal: Principal,
  kind: OperationKind,
  token: string,
): Promise<Operation> {
  const operation = await context.store.operations.findByToken(principal.merchantId, principal.mode, token)
  if (!operation || operation.kind !== kind) throw new ApiError('not_found', `No ${kind} has token ${token}.`)
  return operation
}

/**
 * Newest first: unfiltered pages seek on the dense position; filtered ones count and skip through
 * their index. `phoneNumber` matches the stored E.164 form, whatever form it was sent in: read for
 * the `country` filter when there is one, as international otherwise.
 */
export function listOperations(
  context: AppContext,
  principal: Principal,
  kind: OperationKind,
  filters: OperationFilters,
  page: PageRequest,
): Promise<Page<Operation>> {
  const { phoneNumber } = filters
  const normalised =
    phoneNumber === undefined
      ? filters
      : { ...filters, phoneNumber: phoneNumberFilter(phoneNumber, filters.country) }
  return context.store.operations.list(principal.merchantId, principal.mode, kind, normalised, page)
}
