import type { FastifyInstance } from 'fastify'
import { type Static, Type } from 'typebox'
import type { AppContext } from '../../app/context.ts'
import {
  type AttemptView,
  type EventView,
  eventAttempts,
  findEvent,
  listEvents,
  redeliverEvent,
} from '../../app/events.ts'
import { formatTimestamp } from '../../domain/clock.ts'
import { paginationMeta } from '../pagination.ts'
import { EventType, envelope, listEnvelope, pageQuery } from '../schemas.ts'
import { envelopeOf } from './operations.ts'

const DeliveryStatus = Type.Union(
  [
    Type.Literal('pending'),
    Type.Literal('delivered'),
    Type.Literal('stopped'),
    Type.Literal('given_up'),
    Type.Literal('no_callback'),
  ],
  {
    description:
      'pending: to be sent, or retried; delivered: a 2xx answered; stopped: a 410 answered; given_up: every retry failed; no_callback: the operation has no callbackUrl',
  },
)

export const EventRecord = Type.Object({
  id: Type.String({ description: 'evt_...: also the webhook-id header of each delivery; deduplicate on it' }),
  type: EventType,
  createdAt: Type.String({
    description: 'When the operation took the status: ISO 8601 in UTC with microseconds and a trailing Z',
  }),
  mode: Type.Union([Type.Literal('sandbox'), Type.Literal('live')], {
    description: 'The mode of the operation, as in the callback body; its webhook secret signs it',
  }),
  operation: Type.String({
    description: 'The kind of the operation, or payout_batch for a payout batch’s own event',
  }),
  token: Type.String({ description: 'The operation’s token, or the payout batch’s for its own event' }),
  data: Type.Record(Type.String(), Type.Unknown(), {
    description: 'The record, as the details endpoint returns it',
  }),
  callbackUrl: Type.Union([Type.String(), Type.Null()], {
    description: 'Where it is POSTed: the operation’s callbackUrl; null when it has none',
  }),
  deliveryStatus: DeliveryStatus,
  attempts: Type.Integer({ description: 'Delivery attempts made so far' }),
  nextAttemptAt: Type.Union([Type.String(), Type.Null()], {
    description: 'When the next attempt is due, while pending; null otherwise',
  }),
  deliveredAt: Type.Union([Type.String(), Type.Null()], {
    description: 'When a 2xx answered; null until then',
  }),
})

const DeliveryAttempt = Type.Object({
  number: Type.Integer({ description: 'The attempt’s number, from 1' }),
  startedAt: Type.String({ description: 'When it was sent (as createdAt)' }),
  durationMs: Type.Integer({ description: 'How long the answer took, in milliseconds' }),
  statusCode: Type.Union([Type.Integer(), Type.Null()], {
    description: 'The receiver’s HTTP status; null when no answer came',
  }),
  error: Type.Union([Type.String(), Type.Null()], {
    description: 'Why no answer came (a timeout, a refused connection...); null when one did',
  }),
  outcome: Type.String({
    description: 'delivered (2xx), stopped (410), retry (to be sent again later) or given_up (no retry left)',
  }),
})

const EventWithAttempts = Type.Object(
  {
    ...EventRecord.properties,
    deliveryAttempts: Type.Array(DeliveryAttempt, { description: 'Every attempt, oldest first' }),
  },
  { description: 'The event, with its delivery attempts' },
)

const EventListQuery = Type.Object(
  {
    ...pageQuery,
    type: Type.Optional(
      Type.String({ maxLength: 40, description: 'Only the events of this type, such as collect.succeeded' }),
    ),
    token: Type.Optional(
      Type.String({
        pattern: '^[a-z0-9]{5}(-[a-z0-9]{5}){4}$',
        description: 'Only the events of the operation, or of the payout batch, with this token',
      }),
    ),
    deliveryStatus: Type.Optional(DeliveryStatus),
  },
  { additionalProperties: false },
)

const EventParams = Type.Object({
  id: Type.String({ pattern: '^evt_[A-Za-z0-9]{1,64}$', description: 'The event’s id, evt_...' }),
})

/** The callbacks of the merchant's operations: list, read with attempts, and redeliver. */
export function eventRoutes(app: FastifyInstance, context: AppContext): void {
  listEventsRoute(app, context)
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
      const event = await findEvent(context, request.principal, id)
      const attempts = await eventAttempts(context, id)
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
        response: {
          200: envelope('event', Type.Object(EventRecord.properties, { description: 'The event, queued' })),
        },
      },
    },
    async (request) => {
      const { id } = request.params as { id: string }
      return envelopeOf('Event !', 'event', eventRecord(await redeliverEvent(context, request.principal, id)))
    },
  )
}

function listEventsRoute(app: FastifyInstance, context: AppContext): void {
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
      const filters = { type: query.type, token: query.token, deliveryStatus: query.deliveryStatus }
      const { items, total } = await listEvents(context, request.principal, filters, { page, perPage })
      const baseUrl = context.config.publicBaseUrl
      return {
        ...envelopeOf('Events !', 'events', items.map(eventRecord)),
        meta: { pagination: paginationMeta(baseUrl, '/api/v1/events', query, page, perPage, total) },
      }
    },
  )
}

function eventRecord(event: EventView): Static<typeof EventRecord> {
  const body = JSON.parse(event.payload) as { data: Record<string, unknown> }
  const time = (timeUs: number | null) => (timeUs === null ? null : formatTimestamp(timeUs))
  return {
    id: event.id,
    type: event.type as Static<typeof EventType>,
    createdAt: formatTimestamp(event.createdAtUs),
    mode: event.mode,
    operation: event.kind,
    token: event.token,
    data: body.data,
    callbackUrl: event.callbackUrl,
    deliveryStatus: event.deliveryStatus,
    attempts: event.attempts,
    nextAttemptAt: event.deliveryStatus === 'pending' ? time(event.nextAttemptAtUs) : null,
    deliveredAt: time(event.deliveredAtUs),
  }
}

function attemptRecord(attempt: AttemptView): Static<typeof DeliveryAttempt> {
  return {
    number: attempt.number,
    startedAt: formatTimestamp(attempt.startedAtUs),
    durationMs: attempt.durationMs,
    statusCode: attempt.statusCode,
    error: attempt.error,
    outcome: attempt.outcome,
  }
}
