import { type Mode, modes, sideKindNames } from '../../domain/kinds.ts'
import type { LimitRow, PayoutsPause } from '../../domain/merchant-controls.ts'
import { countries, isCountry, isCurrency, toMinorUnits } from '../../domain/money.ts'
import { percentageToMilli } from '../../domain/pricing.ts'
import type { AuditEntry } from '../../store/repositories/audit-log.ts'
import type { MerchantStatus } from '../../store/repositories/merchants.ts'
import { type FeeRow, listFeeRows, setFeeRow } from '../catalogue.ts'
import type { AppContext } from '../context.ts'
import { auditPageOf } from '../dashboard/audit-view.ts'
import { merchantControlsOf, pausePayouts, resumePayouts, setLimits } from '../merchant-controls.ts'
import { setMerchantStatus } from '../merchants.ts'
import { type MerchantMemberSummary, type MerchantSummary, merchantSummary } from './merchant-directory.ts'
import { invitationsNotAcceptedOf, type WaitingInvitation } from './merchant-members.ts'

export type { MerchantMemberSummary }

import type { PlatformActor } from './platform-audit.ts'

/** A platform member acting in the console: the merchant's audit names them as the platform audit does. */
export type ConsoleActor = Extract<PlatformActor, { kind: 'member' }>

/** Why the console refuses a change to a merchant, each said in the page's language. */
export type MerchantActionRefusal = {
  refused:
    | 'merchant_unknown'
    | 'reason_missing'
    | 'mode_invalid'
    | 'currency_invalid'
    | 'amount_invalid'
    | 'kind_invalid'
    | 'channel_invalid'
    | 'country_invalid'
    | 'percentage_invalid'
    | 'fixed_invalid'
    | 'bearer_invalid'
    | 'member_unknown'
    | 'last_owner'
    | 'date_invalid'
    | 'statement_busy'
}

export type MerchantActionOutcome = { done: true } | MerchantActionRefusal

const refused = (code: MerchantActionRefusal['refused']): MerchantActionRefusal => ({ refused: code })
const done: MerchantActionOutcome = { done: true }

/** Everything a merchant's page in the console shows; undefined when no merchant has this id. */
export interface MerchantFile extends MerchantSummary {
  payoutsPaused: PayoutsPause | null
  limits: LimitRow[]
  /** Its own fee rows (the defaults, `*`, priced where it has none). */
  fees: FeeRow[]
  audit: AuditEntry[]
  /** Its invitations nobody accepted, expired ones too, newest first. */
  invitations: WaitingInvitation[]
}

export async function merchantFileOf(
  context: AppContext,
  merchantId: string,
): Promise<MerchantFile | undefined> {
  const [summary, controls, fees, audit, invitations] = await Promise.all([
    merchantSummary(context, merchantId),
    merchantControlsOf(context, merchantId),
    listFeeRows(context, merchantId),
    auditPageOf(context, merchantId, {}),
    invitationsNotAcceptedOf(context, merchantId),
  ])
  if (!summary || !controls) return undefined
  return { ...summary, ...controls, fees, audit: audit.entries, invitations }
}

/** Risk pauses a merchant's payouts with a reason: in the merchant's audit and the platform's. */
export async function pauseMerchantPayouts(
  context: AppContext,
  actor: ConsoleActor,
  merchantId: string,
  reasonText: string,
): Promise<MerchantActionOutcome> {
  const reason = reasonText.trim().slice(0, 500)
  if (reason === '') return refused('reason_missing')
  if (!(await pausePayouts(context, merchantId, reason, actor))) return refused('merchant_unknown')
  return done
}

export async function resumeMerchantPayouts(
  context: AppContext,
  actor: ConsoleActor,
  merchantId: string,
): Promise<MerchantActionOutcome> {
  if (!(await resumePayouts(context, merchantId, actor))) return refused('merchant_unknown')
  return done
}

/** The limit form as typed: amounts in major units, a blank one removes that limit. */
export interface LimitsForm {
  mode: string
  currency: string
  maxAmount: string
  dailyPayoutLimit: string
}

export async function setMerchantLimits(
  context: AppContext,
  actor: ConsoleActor,
  merchantId: string,
  form: LimitsForm,
): Promise<MerchantActionOutcome> {
  const mode = modes.find((known) => known === form.mode) as Mode | undefined
  if (!mode) return refused('mode_invalid')
  const currency = form.currency
  if (!isCurrency(currency)) return refused('currency_invalid')
  const amount = (text: string): number | null | undefined => {
    const trimmed = text.trim()
    if (trimmed === '') return null
    if (!/^[0-9]{1,15}(\.[0-9]{1,6})?$/.test(trimmed)) return undefined
    const minor = toMinorUnits(Number(trimmed), currency)
    return minor !== undefined && minor > 0 ? minor : undefined
  }
  const maxAmountMinor = amount(form.maxAmount)
  const dailyPayoutLimitMinor = amount(form.dailyPayoutLimit)
  if (maxAmountMinor === undefined || dailyPayoutLimitMinor === undefined) return refused('amount_invalid')
  const change = { merchantId, mode, currency, maxAmountMinor, dailyPayoutLimitMinor }
  if (!(await setLimits(context, change, actor))) return refused('merchant_unknown')
  return done
}

/** Risk suspends or activates a merchant: its keys stop (or start) answering on every instance. */
export async function changeMerchantStatus(
  context: AppContext,
  actor: ConsoleActor,
  merchantId: string,
  status: MerchantStatus,
): Promise<MerchantActionOutcome> {
  if (!(await setMerchantStatus(context, merchantId, status, actor))) return refused('merchant_unknown')
  return done
}

/** The fee form as typed: the percentage as a number (1.5 means 1.5 %), the fixed fee in the country's currency. */
export interface FeeForm {
  kind: string
  channel: string
  country: string
  percentage: string
  fixed: string
  bearer: string
}

/** The fee row a form describes, by the rules of the CLI's `fees set`; a refusal names the first field wrong. */
export function feeRowOf(merchantId: string, form: FeeForm): FeeRow | MerchantActionRefusal {
  const kind = sideKindNames.find((known) => known === form.kind)
  if (!kind) return refused('kind_invalid')
  const channel = form.channel.trim() || '*'
  if (!/^([a-z0-9-]{1,40}|\*)$/.test(channel)) return refused('channel_invalid')
  const country = form.country.trim() || '*'
  if (country !== '*' && !isCountry(country)) return refused('country_invalid')
  const percentageText = form.percentage.trim().replace(',', '.')
  const percentageMilli = /^[0-9]{1,3}(\.[0-9]{1,3})?$/.test(percentageText)
    ? percentageToMilli(Number(percentageText))
    : undefined
  if (percentageMilli === undefined || percentageMilli > 100_000) return refused('percentage_invalid')
  const fixedText = form.fixed.trim().replace(',', '.') || '0'
  if (!/^[0-9]{1,15}(\.[0-9]{1,6})?$/.test(fixedText)) return refused('fixed_invalid')
  // A fixed fee is money, so it needs a currency: the country's.
  const fixed = Number(fixedText)
  if (fixed !== 0 && country === '*') return refused('fixed_invalid')
  const additionalFeeMinor = country === '*' ? 0 : toMinorUnits(fixed, countries[country])
  if (additionalFeeMinor === undefined) return refused('fixed_invalid')
  if (form.bearer !== 'merchant' && form.bearer !== 'customer') return refused('bearer_invalid')
  const supportedByAccount = form.bearer === 'merchant'
  return { merchantId, kind, channel, country, percentageMilli, additionalFeeMinor, supportedByAccount }
}

/** Finance sets one of a merchant's fee rows: it prices the next operation on every instance within 1 s. */
export async function setMerchantFee(
  context: AppContext,
  actor: ConsoleActor,
  merchantId: string,
  form: FeeForm,
): Promise<MerchantActionOutcome> {
  const row = feeRowOf(merchantId, form)
  if ('refused' in row) return row
  if (!(await setFeeRow(context, row, actor))) return refused('merchant_unknown')
  return done
}
