import {
  type OperationKind,
  operationKinds,
  type SideKind,
  type SideRole,
  sideKinds,
} from '../domain/kinds.ts'
import {
  type Currency,
  countries,
  currencies,
  isCountry,
  largestAmountRule,
  maximumMinorUnits,
  precisionRule,
  toMinorUnits,
} from '../domain/money.ts'
import type { Side } from '../domain/operation.ts'
import { readPhoneNumber } from '../domain/phone-numbers.ts'
import { leadingPricingRefusal, type PricingRefusal, price } from '../domain/pricing.ts'
import { ApiError, type ErrorCode, type FieldError, validationFailed } from '../errors.ts'
import type { AppContext } from './context.ts'
import type { PricingRules } from './mechanisms/pricing-rules-cache.ts'
import type { Principal } from './principal.ts'

export interface CustomerInput {
  fullName?: string
  phoneNumber: string
  email?: string
}

export interface SideInput {
  amount: number
  channel: string
  country: string
  customer: CustomerInput
}

/** Each refusal's answer. */
const errorCodeOf: Record<PricingRefusal, ErrorCode> = {
  invalid_input: 'validation_failed',
  channel_unavailable: 'channel_unavailable',
  amount_out_of_range: 'amount_out_of_range',
}

interface Rejection {
  code: PricingRefusal
  error: FieldError
}

/** Where each side's fields are in the request: at the top for a single-sided kind, under its role otherwise. */
export function sideInputsOf(
  kind: OperationKind,
  input: Record<string, unknown>,
): { role: SideRole; sideKind: SideKind; input: SideInput; prefix: string }[] {
  return operationKinds[kind].sides.map(({ role, sideKind }) =>
    role === 'main'
      ? { role, sideKind, input: input as unknown as SideInput, prefix: '' }
      : { role, sideKind, input: input[role] as SideInput, prefix: `${role}.` },
  )
}

/**
 * Prices every side against the catalogue and the merchant's fees (CONTRACT.md, Money and
 * Pricing). All the problems are reported together; the most fundamental names the answer.
 */
export async function priceSides(
  context: AppContext,
  principal: Principal,
  kind: OperationKind,
  input: Record<string, unknown>,
): Promise<Side[]> {
  const steps = sideInputsOf(kind, input)
  const reads = await pricingReadsOfOne(context, principal, steps)
  return priceStepsWith(context, principal, steps, reads)
}

/**
 * Prices many inputs of one kind in one pass (a payout batch's items): the catalogue is read once
 * and each merchant's fee rule once per route the inputs name, never a read per input, whatever
 * the inputs name. Each input's answer is its sides, or the refusal `priceSides` would throw.
 */
export async function priceEach(
  context: AppContext,
  principal: Principal,
  kind: OperationKind,
  inputs: readonly Record<string, unknown>[],
): Promise<(Side[] | ApiError)[]> {
  const stepsOf = inputs.map((input) => sideInputsOf(kind, input))
  const reads = await pricingReadsOfMany(context, principal, stepsOf.flat())
  return stepsOf.map((steps) => {
    try {
      return priceStepsWith(context, principal, steps, reads)
    } catch (refusal) {
      if (refusal instanceof ApiError) return refusal
      throw refusal
    }
  })
}

/** Inputs priced in one turn of long work: a few milliseconds of the event loop. */
const pricedPerTurn = 250

/**
 * As `priceEach`, a chunk of inputs a turn of the process's long work (`LongWorkTurns`): a
 * thousand inputs (a payout batch's items, its uploaded file's rows) hold up no other request.
 */
export async function priceEachInTurns(
  context: AppContext,
  principal: Principal,
  kind: OperationKind,
  inputs: readonly Record<string, unknown>[],
): Promise<(Side[] | ApiError)[]> {
  const priced: (Side[] | ApiError)[] = []
  for (let from = 0; from < inputs.length; from += pricedPerTurn) {
    const chunk = inputs.slice(from, from + pricedPerTurn)
    priced.push(...(await context.longWork.run(principal, () => priceEach(context, principal, kind, chunk))))
  }
  return priced
}

type PricingStep = ReturnType<typeof sideInputsOf>[number]

/** What pricing reads, read before any side is priced: each side's route and fee rule, and why a channel is unknown. */
interface PricingReads {
  rulesOf(kind: SideKind, input: SideInput): PricingRules | undefined
  /** Why a channel code names no channel at all; undefined for a known channel. */
  unknownChannel(channel: string): string | undefined
}

const rulesKey = (merchantId: string, kind: SideKind, input: SideInput) =>
  JSON.stringify([merchantId, kind, input.channel, input.country])

/** Sides whose country is served are priced against a route; the others are refused before any read. */
const servedSteps = (steps: readonly PricingStep[]) => steps.filter((step) => isCountry(step.input.country))

/** One initiation's reads: its sides' rules through the short-lived cache, the channel's name only when it has none. */
async function pricingReadsOfOne(
  context: AppContext,
  principal: Principal,
  steps: readonly PricingStep[],
): Promise<PricingReads> {
  const rules = new Map<string, PricingRules | undefined>()
  const unknown = new Map<string, string | undefined>()
  for (const { sideKind, input } of servedSteps(steps)) {
    const found = await pricingRulesOf(context, principal.merchantId, sideKind, input)
    rules.set(rulesKey(principal.merchantId, sideKind, input), found)
    if (!found) unknown.set(input.channel, await unknownChannelMessage(context, input.channel))
  }
  return {
    rulesOf: (kind, input) => rules.get(rulesKey(principal.merchantId, kind, input)),
    unknownChannel: (channel) => unknown.get(channel),
  }
}

/**
 * Many inputs' reads: the catalogue's routes once, then the merchant's fee rule once per route an
 * input names (through the short-lived cache). A channel no route serves costs no read at all.
 */
async function pricingReadsOfMany(
  context: AppContext,
  principal: Principal,
  steps: readonly PricingStep[],
): Promise<PricingReads> {
  const routes = await context.store.catalogue.listRoutes()
  const routeOf = new Map(
    routes.map((route) => [JSON.stringify([route.kind, route.channel, route.country]), route]),
  )
  const rules = new Map<string, PricingRules | undefined>()
  for (const { sideKind, input } of servedSteps(steps)) {
    const key = rulesKey(principal.merchantId, sideKind, input)
    if (rules.has(key)) continue
    const route = routeOf.get(JSON.stringify([sideKind, input.channel, input.country]))
    rules.set(
      key,
      route &&
        (await context.pricingRules.read(key, async () => {
          const rule = await context.store.catalogue.findFeeRule(
            principal.merchantId,
            sideKind,
            input.channel,
            input.country,
          )
          return rule && { route, rule }
        })),
    )
  }
  const codes = new Set(routes.map((route) => route.channel))
  return {
    rulesOf: (kind, input) => rules.get(rulesKey(principal.merchantId, kind, input)),
    unknownChannel: (channel) => (codes.has(channel) ? undefined : unknownChannelText(channel, codes)),
  }
}

/** The sides priced from reads already made; throws the refusal, as `priceSides` answers it. */
function priceStepsWith(
  context: AppContext,
  principal: Principal,
  steps: readonly PricingStep[],
  reads: PricingReads,
): Side[] {
  const rejections: Rejection[] = []
  const sides: Side[] = []
  for (const step of steps) {
    const side = priceSide(context, principal, step, reads, rejections)
    if (side) sides.push(side)
  }
  const [first, ...others] = sides
  for (const other of others) {
    if (first && other.currency !== first.currency)
      rejections.push({
        code: 'invalid_input',
        error: {
          field: `${other.role}.country`,
          code: 'currency_mismatch',
          message: `Both sides must share a currency: ${first.role} is ${first.currency}, ${other.role} is ${other.currency}.`,
        },
      })
  }
  if (rejections.length > 0) {
    const refusal = leadingPricingRefusal(rejections.map((rejection) => rejection.code))
    const errors = rejections.map((rejection) => rejection.error)
    // A refusal by the catalogue says which channel, country or limit: its first message leads.
    const lead =
      refusal === 'invalid_input' ? undefined : rejections.find((rejection) => rejection.code === refusal)
    throw lead
      ? new ApiError(errorCodeOf[lead.code], lead.error.message, errors)
      : validationFailed(errors, refusal && errorCodeOf[refusal])
  }
  return sides
}

/** The side's currency (its country's) and its amount in minor units, or the reason there is none. */
function moneyOf(
  input: SideInput,
  reject: (code: PricingRefusal, field: string, fieldCode: string, message: string) => undefined,
): { currency: Currency; amountMinor: number } | undefined {
  if (!isCountry(input.country)) {
    return reject(
      'invalid_input',
      'country',
      'unsupported',
      `Country ${input.country} is not served; served countries: ${Object.keys(countries).join(', ')} (GET /api/v1/channels lists each one's channels).`,
    )
  }
  const currency = countries[input.country]
  const amountMinor = toMinorUnits(input.amount, currency)
  if (amountMinor === undefined)
    return reject('invalid_input', 'amount', 'invalid_precision', precisionRule(currency))
  if (amountMinor > maximumMinorUnits)
    return reject('invalid_input', 'amount', 'out_of_range', largestAmountRule(currency))
  return { currency, amountMinor }
}

/** The customer as recorded: its phone number read for the side's country, in E.164. */
function customerOf(
  input: SideInput,
  reject: (code: PricingRefusal, field: string, fieldCode: string, message: string) => undefined,
): Side['customer'] | undefined {
  const phoneNumber = readPhoneNumber(input.customer.phoneNumber, input.country)
  if ('refusal' in phoneNumber)
    return reject('invalid_input', 'customer.phoneNumber', 'wrong_country', phoneNumber.refusal)
  return {
    fullName: input.customer.fullName ?? '',
    phoneNumber: phoneNumber.e164,
    email: input.customer.email ?? '',
  }
}

function priceSide(
  context: AppContext,
  principal: Principal,
  step: PricingStep,
  reads: PricingReads,
  rejections: Rejection[],
): Side | undefined {
  const { role, sideKind: kind, input, prefix } = step
  const reject = (code: PricingRefusal, field: string, fieldCode: string, message: string) => {
    rejections.push({ code, error: { field: prefix + field, code: fieldCode, message } })
    return undefined
  }
  const money = moneyOf(input, reject)
  if (!money) return undefined
  const { currency, amountMinor } = money
  // Reported beside any problem of the channel or the amount below; the side is refused either way.
  const customer = customerOf(input, reject)
  const rules = reads.rulesOf(kind, input)
  if (!rules) {
    const unknown = reads.unknownChannel(input.channel)
    if (unknown) return reject('channel_unavailable', 'channel', 'unknown_channel', unknown)
    return reject(
      'channel_unavailable',
      'channel',
      'channel_unavailable',
      `Channel ${input.channel} does not serve ${kind} in ${input.country}; GET /api/v1/channels lists what does.`,
    )
  }
  const { route, rule } = rules
  if (!context.providers.connects(principal.mode, input.channel, input.country, sideKinds[kind].direction)) {
    return reject(
      'channel_unavailable',
      'channel',
      'channel_unavailable',
      `Channel ${input.channel} is not connected for live ${kind} in ${input.country}; GET /api/v1/channels with a live key lists what is.`,
    )
  }
  if (amountMinor < route.minAmountMinor || amountMinor > route.maxAmountMinor) {
    const unit = 10 ** currencies[currency].scale
    return reject(
      'amount_out_of_range',
      'amount',
      'amount_out_of_range',
      `${input.channel} ${kind} in ${input.country} takes ${route.minAmountMinor / unit} to ${route.maxAmountMinor / unit} ${currency}.`,
    )
  }
  const priced = price(amountMinor, sideKinds[kind].direction, rule)
  if (!priced) {
    return reject('invalid_input', 'amount', 'below_fees', 'The fees would leave nothing to move.')
  }
  if (!customer) return undefined
  return {
    role,
    kind,
    channel: input.channel,
    country: input.country,
    currency,
    amountMinor,
    feesMinor: priced.feesMinor,
    transactionAmountMinor: priced.transactionAmountMinor,
    cashAmountMinor: priced.cashAmountMinor,
    percentageMilli: rule.percentageMilli,
    additionalFeeMinor: rule.additionalFeeMinor,
    supportedByAccount: rule.supportedByAccount,
    customer,
    status: 'pending',
  }
}

/**
 * Why a channel code names no channel at all, pointing to the list (and to the code the caller
 * probably meant, written without its hyphen or in another case), or undefined for a known channel.
 */
async function unknownChannelMessage(context: AppContext, channel: string): Promise<string | undefined> {
  const { catalogue } = context.store
  if ((await catalogue.channelName(channel)) !== undefined) return undefined
  const codes = new Set((await catalogue.listRoutes()).map((route) => route.channel))
  return unknownChannelText(channel, codes)
}

function unknownChannelText(channel: string, codes: ReadonlySet<string>): string {
  const bare = (code: string) => code.toLowerCase().replace(/[^a-z0-9]/g, '')
  const meant = [...codes].find((code) => bare(code) === bare(channel))
  return `There is no channel ${channel}${meant ? ` (did you mean ${meant}?)` : ''}; GET /api/v1/channels lists every channel code.`
}

/** The side's route and the merchant's fee rule for it, read through the short-lived cache. */
function pricingRulesOf(
  context: AppContext,
  merchantId: string,
  kind: SideKind,
  input: SideInput,
): Promise<PricingRules | undefined> {
  const { channel, country } = input
  return context.pricingRules.read(JSON.stringify([merchantId, kind, channel, country]), async () => {
    const { catalogue } = context.store
    const route = await catalogue.findRoute(channel, country, kind)
    const rule = route && (await catalogue.findFeeRule(merchantId, kind, channel, country))
    return route && rule ? { route, rule } : undefined
  })
}
