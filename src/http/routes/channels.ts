import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { type ChannelFilters, listChannels } from '../../app/catalogue.ts'
import type { AppContext } from '../../app/context.ts'
import { operationKindNames } from '../../domain/kinds.ts'
import { envelope, feeFields } from '../schemas.ts'

const ChannelOperation = Type.Object({
  operation: Type.String({
    description:
      'A kind this channel serves in this country: collect, recharge, disbursement or withdraw (a transfer’s from side is a collect, its to side a disbursement)',
  }),
  minAmount: Type.Number({ description: 'The smallest amount accepted, in major units' }),
  maxAmount: Type.Number({ description: 'The largest amount accepted, in major units' }),
  pricing: Type.Object(feeFields, {
    description:
      'This merchant’s fee for it, and who bears it: supportedByAccount false means the customer bears the fee, not that the operation is refused',
  }),
})

export const ChannelRecord = Type.Object(
  {
    channel: Type.String({ description: 'The operator code to send as channel' }),
    name: Type.String({ description: 'The channel’s name, for people: Orange Money, MTN Mobile Money...' }),
    country: Type.String({ description: 'A country it serves (ISO 3166-1 alpha-2)' }),
    currency: Type.String({ description: 'That country’s currency' }),
    operations: Type.Array(ChannelOperation, {
      description: 'What it serves there, with its limits and this merchant’s fees',
    }),
  },
  { description: 'One channel in one country' },
)

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
        response: {
          200: envelope(
            'channels',
            Type.Array(ChannelRecord, {
              description:
                'Every channel and country this merchant may use in the key’s mode; live mode lists only the connected ones',
            }),
          ),
        },
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
