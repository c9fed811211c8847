import type { FastifyInstance } from 'fastify'
import { type Static, Type } from 'typebox'
import type { AppContext } from '../../app/context.ts'
import {
  type AttemptRow,
  type EventRow,
  eventAttempts,
  findEvent,
  listEvents,
  redeliverEvent,
} from '../../app/events-read.ts'
import { formatTimestamp } from '../../domain/clock.ts'
import { ApiError } from '../../errors.ts'
import { paginationMeta } from '../pagination.ts'
import { EventType, envelope, listEnvelope } from '../schemas.ts'
import { envelopeOf } from './operations.ts'

const DeliveryStatus = Type.Union([
  Type.Literal('pending'),
  Type.Literal('delivered'),
  Type.Literal('stopped'),
  Type.Literal('given_up'),
  Type.Literal('no_callback'),
])

export const EventRecord = Type.Object({
  id: Type.String(),
  type: EventType,
  createdAt: Type.String(),
  operation: Type.String(),
  token: Type.String(),
  data: Type.Record(Type.String(), Type.Unknown(), {
    description: 'The record, as the details endpoint returns it',
  }),
  callbackUrl: Type.Union([Type.String(), Type.Null()]),
  deliveryStatus: DeliveryStatus,
  attempts: Type.Integer(),
  nextAttemptAt: Type.Union([Type.String(), Type.Null()]),
  deliveredAt: Type.Union([Type.String(), Type.Null()]),
})

const DeliveryAttempt = Type.Object({
  number: Type.Integer(),
  startedAt: Type.String(),
  durationMs: Type.Integer(),
  statusCode: Type.Union([Type.Integer(), Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()]),
  outcome: Type.String(),
})

const EventWithAttempts = Type.Object({
  ...EventRecord.properties,
  deliveryAttempts: Type.Array(DeliveryAttempt),
})

const EventListQuery = Type.Object(
  {
    page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000_000, default: 1 })),
    perPage: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 10 })),
    type: Type.Optional(Type.String({ maxLength: 40 })),
    token: Type.Optional(Type.String({ pattern: '^[a-z0-9]{5}(-[a-z0-9]{5}){4}$' })),
    deliveryStatus: Type.Optional(DeliveryStatus),
  },
  { additionalProperties: false },
)

const EventParams = Type.Object({ id: Type.String({ pattern: '^evt_[A-Za-z0-9]{1,64}$' }) })

/** The callbacks of the merchant's operations: list, read with attempts, and redeliver. */
export function eventRoutes(app: FastifyInstance, context: AppContext): void {
  app.get(
    '/events',
    {
      schema: {
        tags: ['events'],
        operationId: 'listEvents',
        summary: 'List callback events',
        description: 'Newest first; filters: type (e.g. collect.succeeded), token, deliveryStatus.',
        querystring: EventListQuery,
        response: { 200: listEnvelope('events', EventRecord) },
      },
    },
    async (request) => {
      const query = request.query as Static<typeof EventListQuery>
      const page = query.page ?? 1
      const perPage = query.perPage ?? 10
      const { merchantId, mode } = request.principal
      const { items, total } = await listEvents(
        context.store.db,
        merchantId,
        mode,
        { type: query.type, token: query.token, deliveryStatus: query.deliveryStatus },
        { page, perPage },
      )
      return {
        ...envelopeOf('Events !', 'events', items.map(eventRecord)),
        meta: {
          pagination: paginationMeta(
            context.config.publicBaseUrl,
            '/api/v1/events',
            query,
            page,
            perPage,
            total,
          ),
        },
      }
    },
  )

  app.get(
    '/events/:id',
    {
      schema: {
        tags: ['events'],
        operationId: 'getEvent',
        summary: 'Read an event with its delivery attempts',
        description:
          'Each attempt: when, how long, the HTTP status (or the connection error), and its outcome.',
        params: EventParams,
        response: { 200: envelope('event', EventWithAttempts) },
      },
    },
    async (request) => {
      const { id } = request.params as { id: string }
      const event = await findEvent(
        context.store.db,
        request.principal.merchantId,
        request.principal.mode,
        id,
      )
      if (!event) throw new ApiError('not_found', `No event has id ${id}.`)
      const attempts = await eventAttempts(context.store.db, id)
      return envelopeOf('Event !', 'event', {
        ...eventRecord(event),
        deliveryAttempts: attempts.map(attemptRecord),
      })
    },
  )

  app.post(
    '/events/:id/redeliver',
    {
      schema: {
        tags: ['events'],
        operationId: 'redeliverEvent',
        summary: 'Send an event again now',
        description:
          'Queues the event for delivery at once, whatever its delivery status; attempts go on counting.',
        params: EventParams,
        response: { 200: envelope('event', EventRecord) },
      },
    },
    async (request) => {
      const { id } = request.params as { id: string }
      const event = await redeliverEvent(context, request.principal.merchantId, request.principal.mode, id)
      return envelopeOf('Event !', 'event', eventRecord(event))
    },
  )
}

function eventRecord(event: EventRow): Static<typeof EventRecord> {
  const body = JSON.parse(event.payload) as { data: Record<string, unknown> }
  const time = (micros: number | null) => (micros === null ? null : formatTimestamp(micros))
  return {
    id: event.id,
    type: event.type as Static<typeof EventType>,
    createdAt: formatTimestamp(event.created_at_us),
    operation: event.kind,
    token: event.token,
    data: body.data,
    callbackUrl: event.callback_url,
    deliveryStatus: event.delivery_status,
    attempts: event.attempts,
    nextAttemptAt: event.delivery_status === 'pending' ? time(event.next_attempt_at_us) : null,
    deliveredAt: time(event.delivered_at_us),
  }
}

function attemptRecord(attempt: AttemptRow): Static<typeof DeliveryAttempt> {
  return {
    number: attempt.number,
    startedAt: formatTimestamp(attempt.started_at_us),
    durationMs: attempt.duration_ms,
    statusCode: attempt.status_code,
    error: attempt.error,
    outcome: attempt.outcome,
  }
}
