import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { listChannels } from '../../app/catalogue.ts'
import type { AppContext } from '../../app/context.ts'
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
          'Per channel and country: the currency, and per operation kind its limits and this merchant’s fees.',
        response: { 200: envelope('channels', Type.Array(ChannelRecord)) },
      },
    },
    async (request) => ({
      success: true,
      statusCode: 200,
      message: 'Channels !',
      data: { channels: await listChannels(context, request.principal) },
    }),
  )
}
