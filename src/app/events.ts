import type { Page, PageRequest } from '../domain/pages.ts'
import { ApiError } from '../errors.ts'
import type { AttemptView, EventFilters, EventView } from '../store/repositories/outbox.ts'
import type { AppContext } from './context.ts'
import type { Principal } from './principal.ts'
import { executeWrite } from './write-pipeline.ts'

export type { AttemptView, EventFilters, EventView }

export function listEvents(
  context: AppContext,
  principal: Principal,
  filters: EventFilters,
  page: PageRequest,
): Promise<Page<EventView>> {
  return context.store.outbox.list(principal.merchantId, principal.mode, filters, page)
}

export async function findEvent(context: AppContext, principal: Principal, id: string): Promise<EventView> {
  const event = await context.store.outbox.find(principal.merchantId, principal.mode, id)
  if (!event) throw new ApiError('not_found', `No event has id ${id}.`)
  return event
}

export function eventAttempts(context: AppContext, eventId: string): Promise<AttemptView[]> {
  return context.store.outbox.attempts(eventId)
}

/** Queues the event for delivery now, whatever its delivery status; its attempt count goes on. */
export async function redeliverEvent(
  context: AppContext,
  principal: Principal,
  id: string,
): Promise<EventView> {
  return executeWrite(context, { type: 'redeliver', principal, eventId: id })
}
