import { toMajorUnits, toMinorUnits } from '../../domain/money.ts'
import type { Operation } from '../../domain/operation.ts'
import {
  amountToPay,
  linkPaymentKind,
  linkPaymentReference,
  type PaymentLink,
  type PaymentLinkStatus,
  paymentLinkStatus,
} from '../../domain/payment-links.ts'
import { ApiError } from '../../errors.ts'
import type { PublicLink } from '../../store/repositories/payment-links.ts'
import type { AppContext } from '../context.ts'
import { type Initiation, initiateOperation } from '../initiate.ts'
import { checkSide } from '../lifecycle.ts'
import type { Principal } from '../principal.ts'

/** What the hosted page shows of a link. */
export interface PaymentPageView extends PublicLink {
  status: PaymentLinkStatus
  merchantSuspended: boolean
  /** The channels the customer may choose, with their names; in live mode only those still connected. */
  channels: { channel: string; name: string }[]
}

/** What the customer typed on the page. */
export interface PaymentRequest {
  channel: string
  phoneNumber: string
  /** Typed in major units, as the customer writes it (a comma or a point before the decimals). */
  amount?: string
  fullName?: string
}

/** Why the page took no payment: nothing was created. */
export type PaymentRefusal =
  | { refused: 'unavailable'; status: PaymentLinkStatus }
  | { refused: 'suspended' }
  | { refused: 'channel' | 'phone' | 'amount_missing' | 'amount_invalid' | 'in_flight' }
  | { refused: 'out_of_range'; minMinor: number; maxMinor: number }
  /** The collect itself was refused (the phone number's country, the channel's limits...): its message. */
  | { refused: 'collect'; message: string }

const tokenShape = /^[a-z0-9]{5}(-[a-z0-9]{5}){4}$/
const phoneShape = /^\+?[0-9]{8,15}$/

/**
 * A claim a single-use link gave a payment that was never written (the process stopped between
 * the two) is taken again after this long; a payment's initiation takes far less.
 */
const abandonedClaimUs = 60_000_000

export async function loadPaymentPage(
  context: AppContext,
  token: string,
): Promise<PaymentPageView | undefined> {
  if (!tokenShape.test(token)) return undefined
  const found = await context.store.paymentLinks.findAnyByToken(token)
  if (!found) return undefined
  const { link } = found
  const channels: { channel: string; name: string }[] = []
  for (const channel of link.channels)
    if (context.providers.connects(link.mode, channel, link.country, 'cash-in'))
      channels.push({ channel, name: (await context.store.catalogue.channelName(channel)) ?? channel })
  return {
    ...found,
    status: paymentLinkStatus(link, found.tally, context.clock.nowUs()),
    merchantSuspended: found.merchantStatus !== 'active',
    channels,
  }
}

/**
 * The customer pays: an ordinary collect of the link's mode, through the initiation use case,
 * numbered `<merchantReference>-<n>`, with the link's callbackUrl and metadata. Every refusal
 * creates nothing. A single-use link has at most one payment in flight (see claimPayment), so it
 * never has two succeeded payments.
 */
export async function payThroughLink(
  context: AppContext,
  view: PaymentPageView,
  request: PaymentRequest,
): Promise<{ operation: Operation } | PaymentRefusal> {
  const { link } = view
  if (view.merchantSuspended) return { refused: 'suspended' }
  if (view.status !== 'active') return { refused: 'unavailable', status: view.status }
  const checked = checkRequest(view, request)
  if ('refused' in checked) return checked
  const claimed = link.reusable
    ? await context.store.paymentLinks.nextNumber(link.token)
    : await claimPayment(context, link)
  if (typeof claimed !== 'number') return claimed
  const principal: Principal = {
    merchantId: link.merchantId,
    merchantName: view.merchantName,
    mode: link.mode,
  }
  const input: Initiation = {
    amount: checked.amountMajor,
    channel: request.channel,
    country: link.country,
    customer: {
      phoneNumber: checked.phoneNumber,
      ...(request.fullName ? { fullName: request.fullName } : {}),
    },
    merchantReference: linkPaymentReference(link, claimed),
    ...(link.callbackUrl ? { callbackUrl: link.callbackUrl } : {}),
    ...(link.metadata ? { metadata: link.metadata } : {}),
  }
  const base = context.config.publicBaseUrl.replace(/\/+$/, '')
  try {
    const operation = await initiateOperation(context, principal, linkPaymentKind, input, {
      paymentLink: link.token,
      outcomeUrl: `${base}/pay/${link.token}/done`,
      ...(link.succeededUrl ? { succeededUrl: link.succeededUrl } : {}),
    })
    return { operation }
  } catch (error) {
    // A refusal created nothing, so the claim goes back. After any other failure the collect may
    // have been written: the claim stays, and is taken over only once that collect is final (or,
    // if none was written, after abandonedClaimUs).
    if (!(error instanceof ApiError) || error.status >= 500) throw error
    if (!link.reusable) await context.store.paymentLinks.release(link.token, claimed)
    return { refused: 'collect', message: refusalText(error) }
  }
}

function checkRequest(
  view: PaymentPageView,
  request: PaymentRequest,
): { amountMajor: number; phoneNumber: string } | PaymentRefusal {
  const { link } = view
  if (!view.channels.some((offered) => offered.channel === request.channel)) return { refused: 'channel' }
  const phoneNumber = request.phoneNumber.replace(/[\s.()-]/g, '')
  if (!phoneShape.test(phoneNumber)) return { refused: 'phone' }
  let typedMinor: number | undefined
  if (link.amountMinor === null) {
    const typed = (request.amount ?? '').replace(/[\s\u00a0\u202f]/g, '').replace(',', '.')
    if (typed === '') return { refused: 'amount_missing' }
    typedMinor = /^\d+(\.\d+)?$/.test(typed) ? toMinorUnits(Number(typed), link.currency) : undefined
    if (typedMinor === undefined) return { refused: 'amount_invalid' }
  }
  const amount = amountToPay(link, typedMinor)
  if ('missing' in amount) return { refused: 'amount_missing' }
  if ('outOfRange' in amount) return { refused: 'out_of_range', ...amount.outOfRange }
  return { amountMajor: toMajorUnits(amount.amountMinor, link.currency), phoneNumber }
}

/**
 * A single-use link's payment takes the link's claim first: one conditional UPDATE that succeeds
 * only while the claim is still the one read, so of two customers paying at once one gets it.
 * The claim of a payment that is still pending, or that succeeded, is never taken over: a second
 * payment is refused while the first may still succeed, and the link is completed once it did.
 * A payment that failed, was canceled or ended in error gives the link back to the next one.
 */
async function claimPayment(context: AppContext, link: PaymentLink): Promise<number | PaymentRefusal> {
  const links = context.store.paymentLinks
  const held = await links.claimOf(link.token)
  if (held.number !== null) {
    const reference = linkPaymentReference(link, held.number)
    const payment = await context.store.operations.findByReference(
      link.merchantId,
      link.mode,
      'collect',
      reference,
    )
    if (payment?.status === 'succeeded') return { refused: 'unavailable', status: 'completed' }
    if (payment?.status === 'pending') return { refused: 'in_flight' }
    const nowUs = context.clock.nowUs()
    if (!payment && nowUs - (held.claimedAtUs ?? 0) < abandonedClaimUs) return { refused: 'in_flight' }
  }
  return (await links.claim(link.token, held.number, context.clock.nowUs())) ?? { refused: 'in_flight' }
}

function refusalText(error: ApiError): string {
  const fields = error.errors?.map((field) => field.message).join(' ')
  return fields ? `${error.message} ${fields}` : error.message
}

/**
 * Where a payment of the link stands, for its customer's page: the collect must be the link's. A
 * live side still pending is asked of its operator (once at a time and at most once a second
 * however often the page refreshes), so the page follows the payment even when no notification
 * comes; `askOperator: false` reads only what Sika holds.
 */
export async function linkPaymentOutcome(
  context: AppContext,
  view: PaymentPageView,
  collectToken: string,
  options: { askOperator?: boolean } = {},
): Promise<Operation | undefined> {
  if (!tokenShape.test(collectToken)) return undefined
  const found = await context.store.operations.findAnyByToken(collectToken)
  let operation = found?.operation
  if (!operation || operation.paymentLink !== view.link.token) return undefined
  const side = operation.sides[0]!
  const live = operation.mode === 'live' && options.askOperator !== false
  if (live && operation.status === 'pending' && side.submittedAtUs !== undefined) {
    await checkSide(context, operation.id, side.role)
    operation = (await context.store.operations.findById(operation.id)) ?? operation
  }
  return operation
}

/** How long the page of a pending payment is held at most (`awaitLinkPaymentChange`), and how often it reads the payment meanwhile. */
export const paymentWait = { maxMs: 5_000, everyMs: 500 }

/**
 * The page of a pending payment, held (a long poll) until the payment is no longer pending, or
 * `wait.maxMs` passed, or `signal` aborts (the customer left, the server stops). The operator is
 * asked once, at the start, as each load of the page does (`linkPaymentOutcome`); then what Sika
 * holds is read every `wait.everyMs`, which a notification or a background status check updates.
 * Nothing is held between two reads: no connection, no transaction, only a timer.
 */
export async function awaitLinkPaymentChange(
  context: AppContext,
  view: PaymentPageView,
  collectToken: string,
  signal: AbortSignal,
  wait: { maxMs: number; everyMs: number } = paymentWait,
): Promise<Operation | undefined> {
  const deadline = performance.now() + wait.maxMs
  let operation = await linkPaymentOutcome(context, view, collectToken)
  while (operation?.status === 'pending' && !signal.aborted) {
    const left = deadline - performance.now()
    if (left <= 0) break
    await pause(Math.min(wait.everyMs, left), signal)
    if (signal.aborted) break
    operation = await linkPaymentOutcome(context, view, collectToken, { askOperator: false })
  }
  return operation
}

/** Resolves after `ms`, or as soon as `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    signal.addEventListener('abort', done, { once: true })
  })
}
