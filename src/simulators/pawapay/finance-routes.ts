import { fromUnitsWithDecimals } from '../decimal-units.ts'
import { refuse } from './answers.ts'
import { type Refusal, technical } from './errors.ts'
import { type Checked, isObject, type JsonObject, parseObject, unsupportedField } from './fields.ts'
import { type Exchange, queryOf, sendJson } from './http-io.ts'
import type { SimulatorState } from './state.ts'
import { generateLater, newStatement, type StatementWallet, statementData } from './statements.ts'
import { walletKey } from './wallets.ts'

/**
 * pawaPay's finance endpoints (docs.pawapay.io/v2/api-reference/finances; SOURCES.md, "Wallets and
 * statements"): the wallets' balances, and statements of a wallet over a date range.
 */

const largestRangeMs = 31 * 86_400_000

/** Statement rejections of a well-formed request: 200 REJECTED (PP-KIT's codes; their messages are the simulator's). */
const statementRejections = {
  invalidDateRange: (): Refusal => ({
    status: 200,
    reason: {
      failureCode: 'INVALID_DATE_RANGE',
      failureMessage: 'The endDate must be after the startDate, at most 31 days later.',
    },
  }),
  walletNotFound: (): Refusal => ({
    status: 200,
    reason: { failureCode: 'WALLET_NOT_FOUND', failureMessage: 'No wallet matches the requested wallet.' },
  }),
  invalidCallbackUrl: (): Refusal => ({
    status: 200,
    reason: { failureCode: 'INVALID_CALLBACK_URL', failureMessage: 'The callbackUrl is not a valid URL.' },
  }),
}

/** A refused statement request: `{status: "REJECTED", failureReason}` with the refusal's HTTP status. */
function reject({ response }: Exchange, refusal: Refusal) {
  sendJson(response, refusal.status, { status: 'REJECTED', failureReason: { ...refusal.reason } })
}

/** GET /v2/wallet-balances[?country=ZMB] → `{balances: [{country, balance, currency, provider}]}`. */
export function walletBalances(state: SimulatorState, exchange: Exchange) {
  const country = queryOf(exchange.request.url).get('country')
  if (country !== null && !/^[A-Z]{3}$/.test(country))
    return refuse(
      exchange.response,
      technical.invalidParameter('country', 'it must be an ISO 3166-1 alpha-3 code.'),
    )
  const balances = [...state.wallets]
    .map(([key, book]) => {
      const [walletCountry = '', currency = ''] = key.split('/')
      return {
        country: walletCountry,
        balance: fromUnitsWithDecimals(book.balanceUnits(), 2),
        currency,
        provider: '',
      }
    })
    .filter((wallet) => country === null || wallet.country === country)
  sendJson(exchange.response, 200, { balances })
}

/** "2025-05-10T10:00:00" (UTC, as pawaPay's examples), with a zone (`Z`, `+01:00`) when given. */
function instantOf(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined
  const match = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})?$/.exec(value)
  if (match === null) return undefined
  const ms = Date.parse(`${match[1]}${(match[2] ?? '').slice(0, 4)}${match[3] ?? 'Z'}`)
  return Number.isNaN(ms) ? undefined : ms
}

interface StatementRequest {
  readonly wallet: StatementWallet
  readonly callbackUrl: string
  readonly startDate: string
  readonly endDate: string
  readonly startMs: number
  readonly endMs: number
  readonly compressed: boolean
}

function checkWallet(body: JsonObject): Checked<StatementWallet> {
  const wallet = body.wallet
  if (wallet === undefined || wallet === null) return { refusal: technical.missingParameter('wallet') }
  if (!isObject(wallet)) return { refusal: technical.invalidParameter('wallet', 'it must be an object.') }
  const extra = unsupportedField(wallet, ['country', 'currency', 'provider'], 'wallet.')
  if (extra) return { refusal: extra }
  for (const name of ['country', 'currency'] as const) {
    if (wallet[name] === undefined) return { refusal: technical.missingParameter(`wallet.${name}`) }
    if (typeof wallet[name] !== 'string' || !/^[A-Z]{3}$/.test(wallet[name]))
      return { refusal: technical.invalidParameter(`wallet.${name}`, 'it must be three upper-case letters.') }
  }
  if (wallet.provider !== undefined && typeof wallet.provider !== 'string')
    return { refusal: technical.invalidParameter('wallet.provider', 'it must be a string.') }
  return { value: wallet as unknown as StatementWallet }
}

/** The body's shape (400 when wrong), field by field in the order of the API reference. */
function checkStatementBody(raw: string): Checked<StatementRequest> {
  const parsed = parseObject(raw)
  if (parsed.refusal) return parsed
  const body = parsed.value
  const extra = unsupportedField(body, ['wallet', 'callbackUrl', 'startDate', 'endDate', 'compressed'])
  if (extra) return { refusal: extra }
  const wallet = checkWallet(body)
  if (wallet.refusal) return wallet
  if (body.callbackUrl === undefined) return { refusal: technical.missingParameter('callbackUrl') }
  if (typeof body.callbackUrl !== 'string')
    return { refusal: technical.invalidParameter('callbackUrl', 'it must be a string.') }
  for (const name of ['startDate', 'endDate'] as const) {
    if (body[name] === undefined) return { refusal: technical.missingParameter(name) }
    if (instantOf(body[name]) === undefined)
      return {
        refusal: technical.invalidParameter(name, "it must be a date-time such as '2025-05-10T10:00:00'."),
      }
  }
  if (body.compressed !== undefined && typeof body.compressed !== 'boolean')
    return { refusal: technical.invalidParameter('compressed', 'it must be a boolean.') }
  const { callbackUrl, startDate, endDate } = body as Record<string, string>
  return {
    value: {
      wallet: wallet.value,
      callbackUrl: callbackUrl!,
      startDate: startDate!,
      endDate: endDate!,
      startMs: instantOf(startDate)!,
      endMs: instantOf(endDate)!,
      compressed: body.compressed === true,
    },
  }
}

/** The rejection of a well-formed request, in the order the simulator checks them (not published). */
function rejectionOf(state: SimulatorState, request: StatementRequest): Refusal | undefined {
  if (!/^https?:\/\/[^\s/]+/.test(request.callbackUrl)) return statementRejections.invalidCallbackUrl()
  if (request.endMs <= request.startMs || request.endMs - request.startMs > largestRangeMs)
    return statementRejections.invalidDateRange()
  const { country, currency, provider } = request.wallet
  // The simulator's wallets are per country and currency: none is a provider's own.
  if ((provider ?? '') !== '' || !state.wallets.has(walletKey(country, currency)))
    return statementRejections.walletNotFound()
  return undefined
}

/** POST /v2/statements → 200 `{statementId, status: "ACCEPTED", created}`, then generated asynchronously. */
export function initiateStatement(state: SimulatorState, exchange: Exchange) {
  const checked = checkStatementBody(exchange.body)
  if (checked.refusal) return reject(exchange, checked.refusal)
  const rejection = rejectionOf(state, checked.value)
  if (rejection) return reject(exchange, rejection)
  const statement = newStatement(checked.value)
  state.statements.add(statement)
  generateLater(state, statement)
  const { statementId, created } = statementData(state, statement)
  sendJson(exchange.response, 200, { statementId, status: 'ACCEPTED', created })
}

/** GET /v2/statements/{statementId} → `{status: "FOUND", data}` or `{status: "NOT_FOUND"}`, both 200. */
export function checkStatement(id: string) {
  return (state: SimulatorState, { response }: Exchange) => {
    const statement = state.statements.get(id)
    if (statement === undefined) return sendJson(response, 200, { status: 'NOT_FOUND' })
    sendJson(response, 200, { status: 'FOUND', data: statementData(state, statement) })
  }
}

/**
 * The file behind a downloadUrl (`/_files/statements/{id}/{name}?token=`): pre-signed like a
 * cloud store's link, so no API token is asked; a wrong token or an expired link is a 403.
 */
export function downloadStatementFile(state: SimulatorState, exchange: Exchange) {
  const [, , , id = '', name = ''] = exchange.path.split('/')
  const file = state.statements.get(id)?.file
  const token = queryOf(exchange.request.url).get('token')
  const { response } = exchange
  const refusal = (message: string) => {
    response.writeHead(403, { 'content-type': 'text/plain' })
    response.end(message)
  }
  if (exchange.request.method !== 'GET' || file === undefined || file.name !== name || token !== file.token)
    return refusal('Access denied.')
  if (Date.now() > file.expiresAtMs) return refusal('Request has expired.')
  response.writeHead(200, {
    'content-type': file.contentType,
    'content-length': file.bytes.length,
    'content-disposition': `attachment; filename="${file.name}"`,
  })
  response.end(file.bytes)
}
