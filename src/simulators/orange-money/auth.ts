import { timingSafeEqual } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import { type Refusal, refusals } from './errors.ts'
import { header } from './http-io.ts'
import type { SimulatorState } from './state.ts'

interface ClientCredentials {
  readonly clientId: string
  readonly clientSecret: string
}

function same(given: string, expected: string): boolean {
  const a = Buffer.from(given)
  const b = Buffer.from(expected)
  return a.length === b.length && timingSafeEqual(a, b)
}

/**
 * The client credentials of a token request: `Authorization: Basic base64(client_id:client_secret)`,
 * or, as the OAuth proxy v3 also allows, client_id and client_secret as form parameters.
 */
function credentialsOf(
  request: IncomingMessage,
  form: URLSearchParams,
): { value: ClientCredentials } | { refusal: Refusal } {
  const authorization = header(request, 'Authorization')
  if (authorization === undefined || authorization.trim() === '') {
    const clientId = form.get('client_id')
    const clientSecret = form.get('client_secret')
    if (clientId === null || clientSecret === null) return { refusal: refusals.noClientCredentials() }
    return { value: { clientId, clientSecret } }
  }
  const encoded = /^basic\s+(\S+)$/i.exec(authorization.trim())?.[1]
  if (encoded === undefined) return { refusal: refusals.undecodableBasic() }
  const decoded = Buffer.from(encoded, 'base64').toString('utf8')
  const separator = decoded.indexOf(':')
  if (separator === -1) return { refusal: refusals.undecodableBasic() }
  return { value: { clientId: decoded.slice(0, separator), clientSecret: decoded.slice(separator + 1) } }
}

/** Checks the application's credentials on POST /oauth/v3/token; undefined when they are right. */
export function checkClient(
  state: SimulatorState,
  request: IncomingMessage,
  form: URLSearchParams,
): Refusal | undefined {
  const credentials = credentialsOf(request, form)
  if ('refusal' in credentials) return credentials.refusal
  const { clientId, clientSecret } = credentials.value
  const valid = same(clientId, state.config.clientId) && same(clientSecret, state.config.clientSecret)
  return valid ? undefined : refusals.invalidClient()
}

/**
 * The bearer token every WebPay call needs: missing is code 40, unknown 41, expired 42, as in
 * Orange's common error table.
 */
export function checkBearer(state: SimulatorState, request: IncomingMessage): Refusal | undefined {
  const authorization = header(request, 'Authorization')?.trim() ?? ''
  if (authorization === '') return refusals.missingCredentials()
  const token = /^bearer\s+(\S+)$/i.exec(authorization)?.[1]
  if (token === undefined) return refusals.missingCredentials()
  const check = state.tokens.check(token)
  if (check === 'expired') return refusals.expiredCredentials()
  return check === 'valid' ? undefined : refusals.invalidCredentials()
}
