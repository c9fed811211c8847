import { parseArgs } from 'node:util'
import { type FeeRow, listFeeRows, setFeeRow } from '../app/catalogue.ts'
import type { AppContext } from '../app/context.ts'
import { merchantExists } from '../app/merchants.ts'
import { readBalances } from '../app/transactions.ts'
import { sideKindNames } from '../domain/kinds.ts'
import { type Currency, countries, isCountry, toMajorUnits, toMinorUnits } from '../domain/money.ts'
import { milliToPercentage, percentageToMilli } from '../domain/pricing.ts'
import { CommandError, oneOf, positionalsNamed, UsageError } from './usage.ts'

type Print = (text: string) => void

export function parseFeesSet(args: string[]) {
  const { values, positionals } = parseArgs({
    args,
    options: {
      kind: { type: 'string' },
      channel: { type: 'string' },
      country: { type: 'string', default: '*' },
      percentage: { type: 'string' },
      fixed: { type: 'string', default: '0' },
      bearer: { type: 'string' },
    },
    allowPositionals: true,
  })
  const [merchantId] = positionalsNamed(positionals, ['MERCHANT_ID'])
  const kind = oneOf('kind', values.kind, sideKindNames)
  const channel = values.channel
  if (channel === undefined)
    throw new UsageError('needs --channel CHANNEL: an operator code, or * for every channel')
  if (!/^([a-z0-9-]+|\*)$/.test(channel))
    throw new UsageError(`--channel is an operator code or *, not ${channel}`)
  const country = values.country
  if (country !== '*' && !isCountry(country))
    throw new UsageError(`--country is a served country code or *, not ${country}`)
  if (values.percentage === undefined) throw new UsageError('needs --percentage P (1.5 means 1.5 %)')
  const percentage = Number(values.percentage)
  const percentageMilli = Number.isNaN(percentage) ? undefined : percentageToMilli(percentage)
  if (percentageMilli === undefined || percentageMilli < 0 || percentageMilli > 100_000) {
    throw new UsageError(
      `--percentage is a number from 0 to 100 with at most 3 decimals (1.5 means 1.5 %), not ${values.percentage}`,
    )
  }
  const fixed = Number(values.fixed)
  if (Number.isNaN(fixed) || fixed < 0)
    throw new UsageError(`--fixed is a number of at least 0, not ${values.fixed}`)
  // A fixed fee is money, so it needs a currency: the country's.
  if (fixed !== 0 && country === '*')
    throw new UsageError('--fixed other than 0 needs --country, whose currency it is in')
  const additionalFeeMinor =
    country === '*' ? 0 : toMinorUnits(fixed, countries[country as keyof typeof countries])
  if (additionalFeeMinor === undefined)
    throw new UsageError('--fixed has more decimals than the currency allows')
  const bearer = oneOf('bearer', values.bearer, ['merchant', 'customer'])
  return {
    merchantId: merchantId!,
    kind,
    channel,
    country,
    percentageMilli,
    additionalFeeMinor,
    supportedByAccount: bearer === 'merchant',
  } satisfies FeeRow
}

export async function feesSet(context: AppContext, row: FeeRow, print: Print) {
  if (!(await setFeeRow(context, row, { kind: 'cli' })))
    throw new CommandError(`no merchant has id ${row.merchantId}`)
  print(`fee row set: ${describeFee(row)}`)
}

export async function feesList(
  context: AppContext,
  merchantId: string | undefined,
  json: boolean,
  print: Print,
) {
  const rows = await listFeeRows(context, merchantId)
  if (json) return print(JSON.stringify(rows))
  for (const row of rows) print(describeFee(row))
}

function describeFee(row: FeeRow): string {
  const fixed =
    row.country === '*'
      ? '0'
      : String(toMajorUnits(row.additionalFeeMinor, countries[row.country as keyof typeof countries]))
  const owner = row.merchantId === '*' ? 'default' : row.merchantId
  return `${owner.padEnd(24)} ${row.kind.padEnd(12)} ${row.channel.padEnd(14)} ${row.country.padEnd(3)} ${milliToPercentage(row.percentageMilli)}% + ${fixed}  borne by ${row.supportedByAccount ? 'merchant' : 'customer'}`
}

export async function balance(context: AppContext, merchantId: string, json: boolean, print: Print) {
  if (!(await merchantExists(context, merchantId))) throw new CommandError(`no merchant has id ${merchantId}`)
  const balances = await readBalances(context, merchantId)
  const view = balances.map((row) => {
    const major = (minor: number) => toMajorUnits(minor, row.currency as Currency)
    return {
      mode: row.mode,
      currency: row.currency,
      balance: major(row.postedMinor),
      held: major(row.heldMinor),
      available: major(row.availableMinor),
    }
  })
  if (json) return print(JSON.stringify(view))
  print('mode     currency          balance             held        available')
  for (const row of view) {
    print(
      `${row.mode.padEnd(8)} ${row.currency.padEnd(8)} ${String(row.balance).padStart(16)} ${String(row.held).padStart(16)} ${String(row.available).padStart(16)}`,
    )
  }
}
