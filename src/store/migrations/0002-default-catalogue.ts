import type { Kysely } from 'kysely'
import { defaultChannels, defaultFees, defaultLimits, walletKinds } from '../../domain/default-catalogue.ts'
import { countries, currencies } from '../../domain/money.ts'
import { percentageToMilli } from '../../domain/pricing.ts'

const sideKinds = ['collect', 'recharge', 'disbursement', 'withdraw'] as const

export async function up(db: Kysely<any>): Promise<void> {
  const routes = defaultChannels.flatMap(({ channel, name, countries: served }) =>
    served.flatMap((country) => {
      const currency = countries[country as keyof typeof countries]
      const limits = defaultLimits[currency]
      if (!limits) throw new Error(`no default limits for ${currency}`)
      const unit = 10 ** currencies[currency].scale
      return sideKinds.map((kind) => {
        const [min, max] = (walletKinds as readonly string[]).includes(kind) ? limits.wallet : limits.merchant
        return {
          channel,
          country,
          kind,
          channel_name: name,
          currency,
          min_amount_minor: min * unit,
          max_amount_minor: max * unit,
        }
      })
    }),
  )
  await db.insertInto('channel_routes').values(routes).execute()

  await db
    .insertInto('fee_schedule')
    .values(
      defaultFees.map((fee) => ({
        merchant_id: '*',
        kind: fee.kind,
        channel: fee.channel,
        country: '*',
        percentage_milli: percentageToMilli(fee.percentageFee),
        additional_fee_minor: 0,
        supported_by_account: fee.supportedByAccount ? 1 : 0,
      })),
    )
    .execute()
}
