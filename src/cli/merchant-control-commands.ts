import { parseArgs } from 'node:util'
import type { AppContext } from '../app/context.ts'
import {
  type LimitRow,
  merchantControlsOf,
  pausePayouts,
  resumePayouts,
  setLimits,
} from '../app/merchant-controls.ts'
import { formatTimestamp } from '../domain/clock.ts'
import { modes } from '../domain/kinds.ts'
import { currencies, isCurrency, toMajorUnits, toMinorUnits } from '../domain/money.ts'
import { CommandError, listed, oneOf, positionalsNamed, UsageError } from './usage.ts'

type Print = (text: string) => void

const cli = { kind: 'cli' } as const

/** `merchant pause-payouts ID --reason TEXT`. */
export function parsePausePayouts(args: string[]) {
  const { values, positionals } = parseArgs({
    args,
    options: { reason: { type: 'string' } },
    allowPositionals: true,
  })
  const [merchantId] = positionalsNamed(positionals, ['ID'])
  const reason = values.reason?.trim()
  if (reason === undefined) throw new UsageError('needs --reason TEXT: why the platform pauses its payouts')
  if (reason === '') throw new UsageError('--reason is blank: say why the payouts are paused')
  if (reason.length > 500) throw new UsageError(`--reason is at most 500 characters, not ${reason.length}`)
  return { merchantId: merchantId!, reason }
}

export async function merchantPausePayouts(
  context: AppContext,
  args: ReturnType<typeof parsePausePayouts>,
  print: Print,
) {
  if (!(await pausePayouts(context, args.merchantId, args.reason, cli)))
    throw new CommandError(`no merchant has id ${args.merchantId}`)
  print(
    `${args.merchantId}: payouts paused (${args.reason}); its disbursements, withdraws, transfers and payout batches are refused with 403 payouts_paused, collects go on`,
  )
}

export async function merchantResumePayouts(context: AppContext, merchantId: string, print: Print) {
  if (!(await resumePayouts(context, merchantId, cli)))
    throw new CommandError(`no merchant has id ${merchantId}`)
  print(`${merchantId}: payouts resumed`)
}

/** `merchant limit ID --mode M --currency C [--max-amount N] [--daily-payout-limit N]`: a limit left out is removed. */
export function parseMerchantLimit(args: string[]) {
  const { values, positionals } = parseArgs({
    args,
    options: {
      mode: { type: 'string' },
      currency: { type: 'string' },
      'max-amount': { type: 'string' },
      'daily-payout-limit': { type: 'string' },
    },
    allowPositionals: true,
  })
  const [merchantId] = positionalsNamed(positionals, ['ID'])
  const mode = oneOf('mode', values.mode, modes)
  const currency = values.currency
  const known = Object.keys(currencies)
  if (currency === undefined) throw new UsageError(`needs --currency: ${listed(known)}`)
  if (!isCurrency(currency)) throw new UsageError(`--currency is ${listed(known)}, not ${currency}`)
  const amount = (option: 'max-amount' | 'daily-payout-limit'): number | null => {
    const given = values[option]
    if (given === undefined) return null
    const minor = /^[0-9]+(\.[0-9]+)?$/.test(given) ? toMinorUnits(Number(given), currency) : undefined
    if (minor === undefined || minor <= 0)
      throw new UsageError(`--${option} is an amount above 0 in ${currency}'s precision, not ${given}`)
    return minor
  }
  return {
    merchantId: merchantId!,
    mode,
    currency,
    maxAmountMinor: amount('max-amount'),
    dailyPayoutLimitMinor: amount('daily-payout-limit'),
  }
}

export async function merchantLimit(
  context: AppContext,
  args: ReturnType<typeof parseMerchantLimit>,
  print: Print,
) {
  if (!(await setLimits(context, args, cli))) throw new CommandError(`no merchant has id ${args.merchantId}`)
  const limits = describeLimits([{ ...args }])
  print(`${args.merchantId} ${limits || `${args.mode} ${args.currency}: no limits`}`)
}

/** `merchant show ID [--json]`: its status, whether its payouts are paused, its limits. */
export async function merchantShow(context: AppContext, merchantId: string, json: boolean, print: Print) {
  const controls = await merchantControlsOf(context, merchantId)
  if (!controls) throw new CommandError(`no merchant has id ${merchantId}`)
  const limits = limitsView(controls.limits)
  const paused = controls.payoutsPaused
  if (json)
    return print(
      JSON.stringify({
        id: merchantId,
        payoutsPaused: paused !== null,
        payoutsPausedReason: paused?.reason ?? null,
        limits,
      }),
    )
  print(
    `${merchantId}  payouts ${paused ? `paused since ${formatTimestamp(paused.atUs)}: ${paused.reason ?? 'no reason given'}` : 'not paused'}`,
  )
  print(describeLimits(controls.limits) || 'no limits')
}

/** Limits as JSON prints them: in major units, null for none. */
export function limitsView(limits: readonly LimitRow[]) {
  return limits.map((limit) => ({
    mode: limit.mode,
    currency: limit.currency,
    maxAmount: major(limit.maxAmountMinor, limit.currency),
    dailyPayoutLimit: major(limit.dailyPayoutLimitMinor, limit.currency),
  }))
}

function major(minor: number | null, currency: string): number | null {
  return minor === null ? null : toMajorUnits(minor, currency as never)
}

/** Limits as the CLI prints them: `live XOF maxAmount 50000, dailyPayoutLimit 1000000`, one per line. */
export function describeLimits(limits: readonly LimitRow[]): string {
  return limits
    .flatMap((limit) => {
      const parts = [
        limit.maxAmountMinor === null ? [] : [`maxAmount ${major(limit.maxAmountMinor, limit.currency)}`],
        limit.dailyPayoutLimitMinor === null
          ? []
          : [`dailyPayoutLimit ${major(limit.dailyPayoutLimitMinor, limit.currency)}`],
      ].flat()
      return parts.length === 0 ? [] : [`${limit.mode} ${limit.currency} ${parts.join(', ')}`]
    })
    .join('\n')
}
