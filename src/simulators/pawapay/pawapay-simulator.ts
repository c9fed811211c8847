/**
 * A simulator of pawaPay's Merchant API v2 (docs.pawapay.io/v2): deposits, payouts (alone or in
 * bulks of at most 20) and refunds, their status checks, callbacks and callback resends, ENQUEUED
 * payouts and their cancel (fail-enqueued), active configuration, provider prediction, the
 * callback-signing public key, and the finances: wallet balances and statements (generated
 * asynchronously, downloaded as CSV or gzip) from the wallets' own books. Every behaviour and its published source is in SOURCES.md.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { listen, receive } from '../http-io.ts'
import type { RunningSimulator } from '../simulator.ts'
import { handleApiCall } from './api-routes.ts'
import { CallbackSender } from './callbacks.ts'
import { type PawapaySimulatorOptions, resolveConfig } from './config.ts'
import { connectionEntry } from './connection.ts'
import {
  type ControlView,
  controlPrefix,
  controlView,
  type ForceRequest,
  forceById,
  handleControl,
} from './control-routes.ts'
import { downloadStatementFile } from './finance-routes.ts'
import { sendJson } from './http-io.ts'
import { Ledger } from './ledger.ts'
import { holdPayouts } from './queue.ts'
import { type Acceptance, type BulkReceipt, Receipts } from './receipts.ts'
import { createCallbackSigner } from './signing.ts'
import { type SimulatorState, Timers } from './state.ts'
import { holdStatements, Statements } from './statements.ts'
import { ApiTokens } from './tokens.ts'
import { newWallets } from './wallets.ts'

/** Where statement files are served, as a cloud store would serve pre-signed links: outside the API. */
const filesPrefix = '/_files/'

export type { PawapaySimulatorOptions, SigningKeyOptions } from './config.ts'
export type { ControlView, ForceRequest } from './control-routes.ts'
export type { Acceptance, BulkReceipt } from './receipts.ts'

export interface RunningPawapaySimulator extends RunningSimulator {
  /** The API token accepted now (a new one after expireAccessTokens()). */
  readonly apiToken: string
  /** The key callbacks are signed with when signCallbacks is on (also at /v2/public-key/http). */
  readonly signingKey: { readonly id: string; readonly publicKeyPem: string }
  /** Every payment, oldest first, as the control path lists them. */
  transactions(): ControlView[]
  /**
   * Sets the status of the payment with this id (`operation` when deposit, payout and refund share
   * it), sending its callback when the status is final. False when no single payment matches.
   */
  forceStatus(id: string, forced: ForceRequest): boolean
  /** true: new payouts stay ENQUEUED; false: every ENQUEUED payout goes on. Answers how many are (were) ENQUEUED. */
  holdPayouts(hold: boolean): number
  /** Every POST /v2/payouts/bulk received, refused or not: how many payouts it carried. */
  bulkRequests(): BulkReceipt[]
  /** Per payment id: how often it was answered ACCEPTED and DUPLICATE_IGNORED. */
  acceptances(): Acceptance[]
  /** true: statements stay PROCESSING; false: every held statement is generated now. Answers how many are (were) held. */
  holdStatements(hold: boolean): number
}

async function dispatch(state: SimulatorState, request: IncomingMessage, response: ServerResponse) {
  const exchange = await receive(state.requests, request, response)
  if (exchange.path.startsWith(controlPrefix)) handleControl(state, exchange)
  else if (exchange.path.startsWith(filesPrefix)) downloadStatementFile(state, exchange)
  else handleApiCall(state, exchange)
}

function newState(options: PawapaySimulatorOptions): SimulatorState {
  const config = resolveConfig(options)
  const timers = new Timers()
  const signer = createCallbackSigner(config.signingKey)
  return {
    config,
    tokens: new ApiTokens(config.apiToken),
    ledger: new Ledger(),
    callbacks: new CallbackSender(
      timers,
      config.callbackRetryDelaysMs,
      config.signCallbacks ? signer : undefined,
    ),
    signer,
    timers,
    requests: [],
    receipts: new Receipts(),
    wallets: newWallets(config),
    statements: new Statements(),
    holdPayouts: false,
    url: '',
  }
}

export async function startPawapaySimulator(
  options: PawapaySimulatorOptions = {},
): Promise<RunningPawapaySimulator> {
  const state = newState(options)
  if (state.config.signCallbacks) await state.signer.ready()
  const server = createServer((request, response) => {
    dispatch(state, request, response).catch(() => sendJson(response, 500, { error: 'simulator failure' }))
  })
  const address = await listen(server, state.config.port, state.config.host)
  state.url = `http://${state.config.host}:${address.port}`
  return {
    name: 'pawapay',
    url: state.url,
    get apiToken() {
      return state.tokens.current
    },
    signingKey: { id: state.signer.keyId, publicKeyPem: state.signer.publicKeyPem },
    requests: state.requests,
    callbacks: state.callbacks.sent,
    connection: (channel, countries) => connectionEntry(state, channel, countries),
    expireAccessTokens: () => {
      state.tokens.revokeAll()
    },
    transactions: () => state.ledger.all().map((payment) => controlView(state, payment)),
    forceStatus: (id, forced) => forceById(state, id, forced).payment !== undefined,
    holdPayouts: (hold) => holdPayouts(state, hold),
    bulkRequests: () => [...state.receipts.bulks],
    acceptances: () => state.receipts.acceptances(),
    holdStatements: (hold) => holdStatements(state, hold),
    close: async () => {
      state.timers.clear()
      state.callbacks.close()
      const closed = new Promise<void>((resolve) => server.close(() => resolve()))
      server.closeAllConnections()
      await closed
    },
  }
}
