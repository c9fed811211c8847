import type { Selectable } from 'kysely'
import type { Mode } from '../domain/kinds.ts'
import { ApiError } from '../errors.ts'
import type { EventAttemptsTable, EventsTable } from '../store/schema.ts'
import type { Executor } from '../store/store.ts'
import type { AppContext } from './context.ts'
import { counterValue, isUnfiltered, type Page, type PageRequest, seekPage } from './pages.ts'

export type EventRow = Selectable<EventsTable> & { token: string; kind: string }
export type AttemptRow = Selectable<EventAttemptsTable>

export interface EventFilters {
  type?: string
  token?: string
  deliveryStatus?: string
}

function eventsOf(db: Executor, merchantId: string, mode: Mode) {
  return db
    .selectFrom('events')
    .innerJoin('operations', 'operations.id', 'events.operation_id')
    .selectAll('events')
    .select(['operations.token', 'operations.kind'])
    .where('events.merchant_id', '=', merchantId)
    .where('events.mode', '=', mode)
}

/** Newest first; unfiltered pages seek on the dense per-merchant position, like every list. */
export async function listEvents(
  db: Executor,
  merchantId: string,
  mode: Mode,
  filters: EventFilters,
  page: PageRequest,
): Promise<Page<EventRow>> {
  let query = eventsOf(db, merchantId, mode)
  if (isUnfiltered(filters)) {
    const total = await counterValue(db, merchantId, mode, 'event')
    return seekPage(total, page, (top, limit) =>
      query.where('events.position', '<=', top).orderBy('events.position', 'desc').limit(limit).execute(),
    )
  }
  if (filters.type) query = query.where('events.type', '=', filters.type)
  if (filters.token) query = query.where('operations.token', '=', filters.token)
  if (filters.deliveryStatus)
    query = query.where('events.delivery_status', '=', filters.deliveryStatus as EventRow['delivery_status'])
  const [items, counted] = await Promise.all([
    query
      .orderBy('events.position', 'desc')
      .limit(page.perPage)
      .offset((page.page - 1) * page.perPage)
      .execute(),
    query
      .clearSelect()
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .executeTakeFirstOrThrow(),
  ])
  return { items, total: Number(counted.total) }
}

export async function findEvent(
  db: Executor,
  merchantId: string,
  mode: Mode,
  id: string,
): Promise<EventRow | undefined> {
  return eventsOf(db, merchantId, mode).where('events.id', '=', id).executeTakeFirst()
}

export async function eventAttempts(db: Executor, eventId: string): Promise<AttemptRow[]> {
  return db
    .selectFrom('event_attempts')
    .selectAll()
    .where('event_id', '=', eventId)
    .orderBy('number')
    .execute()
}

/** Queues the event for delivery now; its attempt count goes on from where it was. */
export async function redeliverEvent(
  context: AppContext,
  merchantId: string,
  mode: Mode,
  id: string,
): Promise<EventRow> {
  const event = await findEvent(context.store.db, merchantId, mode, id)
  if (!event) throw new ApiError('not_found', `No event has id ${id}.`)
  if (!event.callback_url) {
    throw new ApiError('validation_failed', 'This event has no callbackUrl to deliver to.', [
      {
        field: 'callbackUrl',
        code: 'no_callback',
        message: 'The operation was initiated without a callbackUrl.',
      },
    ])
  }
  await context.store.db
    .updateTable('events')
    .set({
      delivery_status: 'pending',
      next_attempt_at_us: context.clock.nowMicros(),
      lease_owner: null,
      lease_until_us: null,
    })
    .where('id', '=', id)
    .execute()
  return (await findEvent(context.store.db, merchantId, mode, id))!
}
