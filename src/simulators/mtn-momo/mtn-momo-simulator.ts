/**
 * A simulator of MTN's MoMo Open API (momodeveloper.mtn.com): tokens, RequestToPay (collection),
 * Transfer and Refund (disbursement), their status reads and callbacks, each product's account
 * balance (from the simulator's own books of what succeeded) and account-holder checks. Every behaviour and its published source is listed in SOURCES.md.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { listen, receive } from '../http-io.ts'
import type { RunningSimulator } from '../simulator.ts'
import { newAccounts } from './accounts.ts'
import { handleApiCall } from './api-routes.ts'
import { CallbackSender } from './callbacks.ts'
import { type MtnMomoSimulatorOptions, type ProductCredentials, resolveConfig } from './config.ts'
import { connectionEntry } from './connection.ts'
import {
  type ControlView,
  controlPrefix,
  controlView,
  type ForceRequest,
  forceByReference,
  handleControl,
} from './control-routes.ts'
import { sendJson } from './http-io.ts'
import { Ledger } from './ledger.ts'
import type { ProductName } from './operations.ts'
import { type SimulatorState, Timers } from './state.ts'
import { TokenStore } from './tokens.ts'

export type { MtnMomoSimulatorOptions, ProductCredentials } from './config.ts'
export type { ControlView, ForceRequest } from './control-routes.ts'

export interface RunningMtnMomoSimulator extends RunningSimulator {
  readonly targetEnvironment: string
  /** The API user, API key and subscription key of each product. */
  readonly credentials: Readonly<Record<ProductName, ProductCredentials>>
  /** Every transaction, oldest first, as the control path lists them. */
  transactions(): ControlView[]
  /**
   * Sets the status of the transaction with this reference id (`resource`: requesttopay, transfer
   * or refund, when one id is used by several). False when no single transaction matches.
   */
  forceStatus(referenceId: string, forced: ForceRequest): boolean
}

async function dispatch(state: SimulatorState, request: IncomingMessage, response: ServerResponse) {
  const exchange = await receive(state.requests, request, response)
  if (exchange.path.startsWith(controlPrefix)) handleControl(state, exchange)
  else handleApiCall(state, exchange)
}

export async function startMtnMomoSimulator(
  options: MtnMomoSimulatorOptions = {},
): Promise<RunningMtnMomoSimulator> {
  const config = resolveConfig(options)
  const state: SimulatorState = {
    config,
    tokens: new TokenStore(config.tokenLifetimeSeconds),
    ledger: new Ledger(),
    accounts: newAccounts(config),
    callbacks: new CallbackSender(),
    timers: new Timers(),
    requests: [],
    url: '',
  }
  const server = createServer((request, response) => {
    dispatch(state, request, response).catch(() => sendJson(response, 500, { error: 'simulator failure' }))
  })
  const address = await listen(server, config.port, config.host)
  state.url = `http://${config.host}:${address.port}`
  return {
    name: 'mtn-momo',
    url: state.url,
    targetEnvironment: config.targetEnvironment,
    credentials: config.credentials,
    requests: state.requests,
    callbacks: state.callbacks.sent,
    connection: (channel, countries) => connectionEntry(state, channel, countries),
    expireAccessTokens: () => state.tokens.expireAll(),
    transactions: () => state.ledger.all().map((transaction) => controlView(state, transaction)),
    forceStatus: (referenceId, forced) =>
      forceByReference(state, referenceId, forced).transaction !== undefined,
    close: async () => {
      state.timers.clear()
      state.callbacks.close()
      const closed = new Promise<void>((resolve) => server.close(() => resolve()))
      server.closeAllConnections()
      await closed
    },
  }
}
