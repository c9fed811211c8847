/**
 * A simulator of the Wave Business API (docs.wave.com): the Checkout API with its hosted payment
 * page, the Payout API with idempotency keys, signed webhooks, and the Balance & Reconciliation
 * API read from the wallet's own books of what moved through it. Every behaviour and its
 * published source is listed in SOURCES.md.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { listen, receive } from '../http-io.ts'
import type { RunningSimulator } from '../simulator.ts'
import { handleApiCall } from './api-routes.ts'
import { CheckoutStore } from './checkout-store.ts'
import { resolveConfig, type WaveSimulatorOptions } from './config.ts'
import { connectionEntry } from './connection.ts'
import {
  type ForcedPayout,
  type ForcedSession,
  forcePayout,
  forceSession,
  type PayoutControlView,
  payoutControlView,
  type SessionControlView,
  sessionControlView,
} from './control-force.ts'
import { controlPrefix, handleControl } from './control-routes.ts'
import { sendJson } from './http-io.ts'
import { handlePayPage, payPagePrefix } from './pay-page.ts'
import { PayoutStore } from './payout-store.ts'
import { type SimulatorState, Timers } from './state.ts'
import { newWallet } from './wallet.ts'
import { WebhookSender } from './webhooks.ts'

export type { WaveSimulatorOptions } from './config.ts'
export type { ForcedPayout, ForcedSession, PayoutControlView, SessionControlView } from './control-force.ts'
export { signatureHeader } from './webhooks.ts'

export interface RunningWaveSimulator extends RunningSimulator {
  /** The API key calls must carry as `Authorization: Bearer`. */
  readonly apiKey: string
  /** The secret the webhooks are signed with. */
  readonly webhookSecret: string
  /** Every checkout session, oldest first, as the control path lists them. */
  sessions(): SessionControlView[]
  /** Every payout, oldest first, as the control path lists them. */
  payouts(): PayoutControlView[]
  /** Ends an open checkout session as told; false when there is no such open session. */
  forceSession(id: string, forced: ForcedSession): boolean
  /** Sets a payout's status; false when there is no such payout. */
  forcePayout(id: string, forced: ForcedPayout): boolean
  /** Revokes the API key (`api-key-revoked` from then on), or restores it. */
  revokeApiKey(revoked?: boolean): void
}

async function dispatch(state: SimulatorState, request: IncomingMessage, response: ServerResponse) {
  const exchange = await receive(state.requests, request, response)
  if (exchange.path.startsWith(controlPrefix)) handleControl(state, exchange)
  else if (exchange.path.startsWith(payPagePrefix)) handlePayPage(state, exchange)
  else handleApiCall(state, exchange)
}

function newState(options: WaveSimulatorOptions): SimulatorState {
  const config = resolveConfig(options)
  const timers = new Timers()
  return {
    config,
    checkout: new CheckoutStore(),
    payouts: new PayoutStore(),
    wallet: newWallet(config),
    webhooks: new WebhookSender(config, timers),
    timers,
    requests: [],
    apiKeyRevoked: false,
    url: '',
  }
}

export async function startWaveSimulator(options: WaveSimulatorOptions = {}): Promise<RunningWaveSimulator> {
  const state = newState(options)
  const server = createServer((request, response) => {
    dispatch(state, request, response).catch(() =>
      sendJson(response, 500, { code: 'internal-server-error', message: 'Simulator failure.' }),
    )
  })
  const address = await listen(server, state.config.port, state.config.host)
  state.url = `http://${state.config.host}:${address.port}`
  return {
    name: 'wave',
    url: state.url,
    apiKey: state.config.apiKey,
    webhookSecret: state.config.webhookSecret,
    requests: state.requests,
    callbacks: state.webhooks.sent,
    connection: (channel, countries) => connectionEntry(state, channel, countries),
    // Wave's API keys do not expire and there is no token to refresh: nothing to do.
    expireAccessTokens: () => {},
    sessions: () => state.checkout.all().map((session) => sessionControlView(state, session)),
    payouts: () => state.payouts.all().map(payoutControlView),
    forceSession: (id, forced) => {
      const session = state.checkout.get(id)
      return session !== undefined && forceSession(state, session, forced)
    },
    forcePayout: (id, forced) => {
      const payout = state.payouts.get(id)
      if (payout !== undefined) forcePayout(state, payout, forced)
      return payout !== undefined
    },
    revokeApiKey: (revoked = true) => {
      state.apiKeyRevoked = revoked
    },
    close: async () => {
      state.timers.clear()
      state.webhooks.close()
      const closed = new Promise<void>((resolve) => server.close(() => resolve()))
      server.closeAllConnections()
      await closed
    },
  }
}
