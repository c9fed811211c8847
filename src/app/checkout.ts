import type { Operation, Side } from '../domain/operation.ts'
import { expiredReason, type SideOutcome } from '../domain/transitions.ts'
import { cspSourceOf, parseHttpUrl } from '../domain/urls.ts'
import type { AppContext } from './context.ts'
import { checkSide, settleSide } from './lifecycle.ts'

/** What the hosted checkout page shows, and whether the customer may still decide. */
export interface CheckoutView {
  operation: Operation
  /** The side the customer decides on; once decided, the side that asked for it. */
  side: Side
  merchantName: string
  channelName: string
  /** Pending and past its time to live, even if expiry has not run yet. */
  expired: boolean
  /** The merchant is suspended: its customers cannot pay it, so nothing is offered. */
  merchantSuspended: boolean
  mayDecide: boolean
}

const tokenShape = /^[a-z0-9]{5}(-[a-z0-9]{5}){4}$/

const declined = { code: 'customer_declined', message: 'The customer declined on the checkout page.' }

export async function loadCheckout(context: AppContext, token: string): Promise<CheckoutView | undefined> {
  if (!tokenShape.test(token)) return undefined
  const found = await context.store.operations.findAnyByToken(token)
  if (!found) return undefined
  const { operation, merchantName, merchantStatus } = found
  // A page exists only for an operation that sent its customer here (the sandbox's 906): not for
  // any token, since a token alone must not show a live payment or payout to whoever holds it.
  if (!operation.redirectUrl?.endsWith(`/checkout/${token}`)) return undefined
  const side =
    operation.sides.find((candidate) => candidate.awaitingCustomer) ??
    operation.sides.find(
      (candidate) => candidate.providerReference !== undefined && candidate.status !== 'pending',
    ) ??
    operation.sides[0]!
  const expired =
    operation.status === 'pending' &&
    context.clock.nowUs() >= operation.initiatedAtUs + context.config.operationTtlMs * 1000
  const merchantSuspended = merchantStatus !== 'active'
  return {
    operation,
    side,
    merchantName,
    channelName: (await context.store.catalogue.channelName(side.channel)) ?? side.channel,
    expired,
    merchantSuspended,
    mayDecide: customerMayDecide(operation, side) && !expired && !merchantSuspended,
  }
}

/**
 * Only the sandbox's customer decides here. In live mode the operator alone says whether money
 * moved, so a click on our page must never settle a live operation.
 */
function customerMayDecide(operation: Operation, side: Side): boolean {
  return operation.mode === 'sandbox' && operation.status === 'pending' && side.awaitingCustomer === true
}

/**
 * The customer's decision enters the state machine like any provider's answer; the redirect
 * that follows never settles money. Answers where to send the browser.
 */
export async function decideCheckout(context: AppContext, view: CheckoutView, pay: boolean): Promise<string> {
  let { operation } = view
  if (customerMayDecide(operation, view.side) && !view.merchantSuspended) {
    const outcome: SideOutcome = view.expired
      ? { status: 'canceled', reason: expiredReason }
      : pay
        ? { status: 'succeeded' }
        : { status: 'canceled', reason: declined }
    operation = await settleSide(context, operation.id, view.side.role, outcome, 'checkout')
  }
  return outcomeLocation(operation)
}

/** The merchant's outcome URL for the status (pendingUrl while pending), with token, reference and status. */
function outcomeLocation(operation: Operation): string {
  const target = operation.urls[`${operation.status}Url` as const]
  const url = target ? parseHttpUrl(target) : undefined
  if (!url) return `/checkout/${operation.token}`
  url.searchParams.set('token', operation.token)
  url.searchParams.set('merchantReference', operation.merchantReference)
  url.searchParams.set('status', operation.status)
  return url.toString()
}

/**
 * The origins of the merchant's outcome URLs, where the page's forms may lead, as CSP source
 * expressions built from their parsed parts: a header never carries the merchant's text itself.
 */
export function outcomeSources(operation: Operation): string[] {
  const urls = [
    operation.urls.pendingUrl,
    operation.urls.succeededUrl,
    operation.urls.failedUrl,
    operation.urls.canceledUrl,
    operation.urls.errorUrl,
  ]
  const sources = urls.map((url) => (url ? cspSourceOf(url) : undefined))
  return [...new Set(sources.filter((source): source is string => source !== undefined))]
}

/**
 * The customer comes back from an operator's own payment page (Wave's success_url and error_url):
 * the side is asked where it stands, then the browser goes on to the merchant's outcome URL. The
 * redirect never settles money by itself; the operator's answer does.
 */
export async function returnFromOperator(context: AppContext, token: string): Promise<string | undefined> {
  const found = await context.store.operations.findAnyByToken(token)
  if (!found) return undefined
  let { operation } = found
  const side = operation.sides.find(
    (candidate) =>
      candidate.status === 'pending' && candidate.submittedAtUs !== undefined && !candidate.awaitingCustomer,
  )
  if (operation.mode === 'live' && side) {
    // Whoever holds the token can come back here as often as they like: the operator is asked
    // through the side's status checks, once at a time and at most once a second.
    await checkSide(context, operation.id, side.role)
    operation = (await context.store.operations.findById(operation.id)) ?? operation
  }
  return outcomeLocation(operation)
}
