import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { listFeeRows, listRoutes } from '../../app/catalogue.ts'
import type { AppContext } from '../../app/context.ts'
import { toMajorUnits } from '../../domain/money.ts'
import { milliToPercentage } from '../../domain/pricing.ts'
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
    async (request) => {
      const [routes, fees] = await Promise.all([
        listRoutes(context.store.db),
        listFeeRows(context.store.db, request.principal.merchantId),
      ])
      const specificity = (row: (typeof fees)[number]) =>
        (row.merchantId !== '*' ? 4 : 0) + (row.channel !== '*' ? 2 : 0) + (row.country !== '*' ? 1 : 0)
      fees.sort((a, b) => specificity(b) - specificity(a))
      const channels = new Map<
        string,
        { channel: string; name: string; country: string; currency: string; operations: unknown[] }
      >()
      for (const route of routes) {
        const fee = fees.find(
          (row) =>
            row.kind === route.kind &&
            (row.channel === route.channel || row.channel === '*') &&
            (row.country === route.country || row.country === '*'),
        )
        if (!fee) continue
        const key = `${route.channel}/${route.country}`
        const entry = channels.get(key) ?? {
          channel: route.channel,
          name: route.channelName,
          country: route.country,
          currency: route.currency,
          operations: [],
        }
        entry.operations.push({
          operation: route.kind,
          minAmount: toMajorUnits(route.minAmountMinor, route.currency),
          maxAmount: toMajorUnits(route.maxAmountMinor, route.currency),
          pricing: {
            percentageFee: milliToPercentage(fee.percentageMilli),
            additionalFee: toMajorUnits(fee.additionalFeeMinor, route.currency),
            supportedByAccount: fee.supportedByAccount,
          },
        })
        channels.set(key, entry)
      }
      return {
        success: true,
        statusCode: 200,
        message: 'Channels !',
        data: { channels: [...channels.values()] },
      }
    },
  )
}
