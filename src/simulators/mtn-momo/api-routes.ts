import type { ServerResponse } from 'node:http'
import type { Exchange } from '../http-io.ts'
import { outcomeForPhoneNumber, type SimulatorOutcome } from '../test-numbers.ts'
import { balanceView } from './accounts.ts'
import { checkApiCall, checkBasicCredentials, checkSubscriptionKey } from './auth.ts'
import { type Refusal, refusals } from './errors.ts'
import { header, sendEmpty, sendJson } from './http-io.ts'
import { type MomoTransaction, type Party, statusView } from './ledger.ts'
import { type OperationSpec, operations, type ProductName, products, requestToPay } from './operations.ts'
import { settleLater } from './settlement.ts'
import type { SimulatorState } from './state.ts'
import { type CheckedBody, checkBody, checkCallbackUrl, checkReferenceId } from './validation.ts'

export type { Exchange }

interface Route {
  readonly product: ProductName
  /** The token call authenticates with Basic credentials, every other one with a bearer token. */
  readonly bearer: boolean
  readonly run: (state: SimulatorState, exchange: Exchange) => void
}

export function refuse(response: ServerResponse, refusal: Refusal): void {
  if (refusal.body === undefined) sendEmpty(response, refusal.status)
  else sendJson(response, refusal.status, refusal.body)
}

/** Only an MSISDN is a phone number the shared test table applies to. */
function outcomeOf(party: Party): SimulatorOutcome {
  return party.partyIdType === 'MSISDN' ? outcomeForPhoneNumber(party.partyId) : 'succeeds'
}

function issueToken(product: ProductName) {
  return (state: SimulatorState, { request, response }: Exchange) => {
    const refusal = checkBasicCredentials(state, request, product)
    if (refusal) return refuse(response, refusal)
    sendJson(response, 200, state.tokens.issue(product, state.config.credentials[product].apiUser))
  }
}

function newTransaction(
  spec: OperationSpec,
  referenceId: string,
  body: CheckedBody,
  party: Party,
  callbackUrl?: string,
) {
  const transaction: MomoTransaction = {
    spec,
    referenceId,
    amount: body.amount,
    currency: body.currency,
    externalId: body.externalId,
    party,
    payerMessage: body.payerMessage,
    payeeNote: body.payeeNote,
    referenceIdToRefund: body.referenceIdToRefund,
    callbackUrl,
    outcome: outcomeOf(party),
    createdAtMs: Date.now(),
    status: 'PENDING',
    reason: undefined,
    financialTransactionId: undefined,
    settledAtMs: undefined,
    callbackSent: false,
  }
  return transaction
}

/** Answers a stored request as its test number says: 106 with a 500, 107 only after hangMs. */
function acknowledge(state: SimulatorState, response: ServerResponse, outcome: SimulatorOutcome) {
  if (outcome === '106') return refuse(response, refusals.internalError())
  if (outcome === '107') return state.timers.after(state.config.hangMs, () => sendEmpty(response, 202))
  sendEmpty(response, 202)
}

/** POST of a request to pay, a transfer or a refund: validated, stored PENDING, answered 202. */
function create(spec: OperationSpec) {
  return (state: SimulatorState, { request, response, body }: Exchange) => {
    const reference = checkReferenceId(header(request, 'X-Reference-Id'))
    if (reference.refusal) return refuse(response, reference.refusal)
    const referenceId = reference.value
    const callbackUrl = header(request, 'X-Callback-Url')
    const callbackRefusal = checkCallbackUrl(callbackUrl, state.config)
    if (callbackRefusal) return refuse(response, callbackRefusal)
    const checked = checkBody(body, spec, state.config)
    if (checked.refusal) return refuse(response, checked.refusal)
    if (state.ledger.get(spec.resource, referenceId)) return refuse(response, refusals.alreadyExists())
    const refunded =
      checked.value.referenceIdToRefund === undefined
        ? undefined
        : state.ledger.get(requestToPay.resource, checked.value.referenceIdToRefund)
    const party = checked.value.party ?? refunded?.party
    if (party === undefined) return refuse(response, refusals.notFound())
    const transaction = newTransaction(spec, referenceId, checked.value, party, callbackUrl)
    state.ledger.add(transaction)
    settleLater(state, transaction)
    acknowledge(state, response, transaction.outcome)
  }
}

function status(spec: OperationSpec) {
  return (state: SimulatorState, { path, response }: Exchange) => {
    const transaction = state.ledger.get(spec.resource, path.slice(spec.statusPrefix.length))
    if (transaction === undefined) return refuse(response, refusals.notFound())
    sendJson(response, 200, statusView(transaction, state.config.reasonFormat))
  }
}

/** GET /{product}/v1_0/account/balance: the product's account, from the simulator's books. */
function balance(product: ProductName) {
  return (state: SimulatorState, { response }: Exchange): void => {
    sendJson(response, 200, balanceView(state, product))
  }
}

/** GET /{product}/v1_0/accountholder/{msisdn|email|party_code}/{id}/active: 108 is not registered. */
function accountHolderActive(_state: SimulatorState, { path, response }: Exchange) {
  const [, , , , type = '', id = ''] = path.split('/')
  const types: Record<string, string> = { msisdn: 'MSISDN', email: 'EMAIL', party_code: 'PARTY_CODE' }
  const partyIdType = Object.hasOwn(types, type) ? types[type] : undefined
  if (partyIdType === undefined)
    return refuse(response, refusals.badRequest('Unknown account holder id type.'))
  sendJson(response, 200, { result: outcomeOf({ partyIdType, partyId: decodeURIComponent(id) }) !== '108' })
}

const accountHolderPath = /^\/(collection|disbursement)\/v1_0\/accountholder\/[^/]+\/[^/]+\/active$/

/** The operation a method and path name, or undefined for what the gateway does not publish. */
function routeOf(method: string, path: string): Route | undefined {
  for (const product of products) {
    if (method === 'POST' && path === `/${product}/token/`)
      return { product, bearer: false, run: issueToken(product) }
    if (method === 'GET' && path === `/${product}/v1_0/account/balance`)
      return { product, bearer: true, run: balance(product) }
  }
  for (const spec of operations) {
    if (method === 'POST' && path === spec.createPath)
      return { product: spec.product, bearer: true, run: create(spec) }
    const id = path.startsWith(spec.statusPrefix) ? path.slice(spec.statusPrefix.length) : ''
    if (method === 'GET' && id !== '' && !id.includes('/')) {
      return { product: spec.product, bearer: true, run: status(spec) }
    }
  }
  const holder = method === 'GET' ? accountHolderPath.exec(path) : null
  if (holder?.[1] !== undefined) {
    return { product: holder[1] as ProductName, bearer: true, run: accountHolderActive }
  }
  return undefined
}

/** Answers one call to the MoMo Open API. */
export function handleApiCall(state: SimulatorState, exchange: Exchange) {
  const route = routeOf(exchange.request.method ?? 'GET', exchange.path)
  if (route === undefined) return refuse(exchange.response, refusals.unknownOperation())
  const refusal = route.bearer
    ? checkApiCall(state, exchange.request, route.product)
    : checkSubscriptionKey(state, exchange.request, route.product)
  if (refusal) return refuse(exchange.response, refusal)
  route.run(state, exchange)
}
