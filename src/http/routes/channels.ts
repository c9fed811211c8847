import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { type ChannelFilters, listChannels } from '../../app/catalogue.ts'
import type { AppContext } from '../../app/context.ts'
import { operationKindNames } from '../../domain/kinds.ts'
import { envelope } from '../schemas.ts'

const ChannelOperation = Type.Object({
  operation: Type.String(),
  minAmount: Type.Number(),
  maxAmount: Type.Number(),
  pricing: Type.Object({
    percentageFee: Type.Number(),
    additionalFee: Type.Number(),
    supportedByAccount: Type.Boolean(),
  }),
})

export const ChannelRecord = Type.Object({
  channel: Type.String(),
  name: Type.String(),
  country: Type.String(),
  currency: Type.String(),
  operations: Type.Array(ChannelOperation),
})

/** Filters, as on the lists: an unknown parameter or a bad value is a 422. */
export const ChannelListQuery = Type.Object(
  {
    country: Type.Optional(
      Type.String({
        pattern: '^[A-Z]{2}$',
        description: 'ISO 3166-1 alpha-2: the channels serving this country',
      }),
    ),
    kind: Type.Optional(
      Type.Union(
        operationKindNames.map((kind) => Type.Literal(kind)),
        {
          description:
            'An operation kind: the channels that serve it, with only its operations (a transfer’s are collect, for its from side, and disbursement, for its to side)',
        },
      ),
    ),
    channel: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 40,
        pattern: '^[a-z0-9-]+$',
        description: 'An operator code, such as orange-money: that channel in each country it serves',
      }),
    ),
  },
  { additionalProperties: false },
)

/** GET /api/v1/channels: what the calling merchant may use, with its limits and its own fees. */
export function channelRoutes(app: FastifyInstance, context: AppContext): void {
  app.get(
    '/channels',
    {
      schema: {
        tags: ['channels'],
        operationId: 'listChannels',
        summary: 'List the channels this merchant may use',
        description:
          'Per channel and country: the currency, and per operation kind its limits and this merchant’s fees. Filters `country`, `kind` and `channel` narrow the list; an unknown parameter is a 422.',
        querystring: ChannelListQuery,
        response: { 200: envelope('channels', Type.Array(ChannelRecord)) },
      },
    },
    async (request) => ({
      success: true,
      statusCode: 200,
      message: 'Channels !',
      data: { channels: await listChannels(context, request.principal, request.query as ChannelFilters) },
    }),
  )
}
