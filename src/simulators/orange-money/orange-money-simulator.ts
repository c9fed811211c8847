/**
 * A simulator of Orange's "Orange Money Web Payment / M Payment" API (developer.orange.com): the
 * OAuth v3 token, webpayment (a hosted payment session), the payment page a customer confirms
 * on, the notification to notif_url, and transactionstatus. Cash-in only: the API has no payout.
 * Every behaviour and its published source is listed in SOURCES.md.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { listen, receive } from '../http-io.ts'
import type { RunningSimulator } from '../simulator.ts'
import { handleApiCall, refuse } from './api-routes.ts'
import { type OrangeMoneySimulatorOptions, resolveConfig } from './config.ts'
import { connectionEntry } from './connection.ts'
import { type ControlView, controlPrefix, controlView, handleControl } from './control-routes.ts'
import { refusals } from './errors.ts'
import { NotificationSender } from './notifications.ts'
import { handlePaymentPage, pagePrefix } from './payment-page.ts'
import { PaymentBook } from './payments.ts'
import { cancel, confirm, type ForcedStatus, forceStatus } from './settlement.ts'
import { type SimulatorState, Timers } from './state.ts'
import { TokenStore } from './tokens.ts'

export type { OrangeMoneySimulatorOptions } from './config.ts'
export type { ControlView } from './control-routes.ts'
export type { ForcedStatus } from './settlement.ts'

export interface RunningOrangeMoneySimulator extends RunningSimulator {
  readonly clientId: string
  readonly clientSecret: string
  readonly merchantKey: string
  /** Every payment, oldest first, as the control path lists them. */
  payments(): ControlView[]
  /**
   * Confirms the payment with this pay_token or order_id as the page's Confirmer does, as the
   * customer with this number. False when no INITIATED payment matches.
   */
  pay(id: string, msisdn: string): boolean
  /** The page's cancel link. False when no INITIATED payment matches. */
  cancel(id: string): boolean
  /** Sets the status of the payment with this pay_token or order_id. False when none matches. */
  forceStatus(id: string, forced: ForcedStatus): boolean
}

async function dispatch(state: SimulatorState, request: IncomingMessage, response: ServerResponse) {
  const exchange = await receive(state.requests, request, response)
  if (exchange.path.startsWith(controlPrefix)) handleControl(state, exchange)
  else if (exchange.path.startsWith(pagePrefix)) handlePaymentPage(state, exchange)
  else handleApiCall(state, exchange)
}

function newState(options: OrangeMoneySimulatorOptions): SimulatorState {
  const config = resolveConfig(options)
  return {
    config,
    tokens: new TokenStore(config.tokenLifetimeSeconds),
    payments: new PaymentBook(),
    notifications: new NotificationSender(),
    timers: new Timers(),
    requests: [],
    url: '',
  }
}

export async function startOrangeMoneySimulator(
  options: OrangeMoneySimulatorOptions = {},
): Promise<RunningOrangeMoneySimulator> {
  const state = newState(options)
  const { config } = state
  const server = createServer((request, response) => {
    dispatch(state, request, response).catch(() => refuse(response, refusals.internalError()))
  })
  const address = await listen(server, config.port, config.host)
  state.url = `http://${config.host}:${address.port}`
  const find = (id: string) => state.payments.find(id)
  return {
    name: 'orange-money',
    url: state.url,
    clientId: config.clientId,
    clientSecret: config.clientSecret,
    merchantKey: config.merchantKey,
    requests: state.requests,
    callbacks: state.notifications.sent,
    connection: (channel, countries) => connectionEntry(state, channel, countries),
    expireAccessTokens: () => state.tokens.expireAll(),
    payments: () => state.payments.all().map((payment) => controlView(state, payment)),
    pay: (id, msisdn) => {
      const payment = find(id)
      return payment !== undefined && confirm(state, payment, msisdn) !== 'not-initiated'
    },
    cancel: (id) => {
      const payment = find(id)
      return payment !== undefined && cancel(state, payment)
    },
    forceStatus: (id, forced) => {
      const payment = find(id)
      if (payment !== undefined) forceStatus(state, payment, forced)
      return payment !== undefined
    },
    close: async () => {
      state.timers.clear()
      state.notifications.close()
      const closed = new Promise<void>((resolve) => server.close(() => resolve()))
      server.closeAllConnections()
      await closed
    },
  }
}
