import type { IncomingMessage } from 'node:http'
import { type Refusal, refusals } from './errors.ts'
import { header } from './http-io.ts'
import type { ProductName } from './operations.ts'
import type { SimulatorState } from './state.ts'

/**
 * The gateway in front (Azure API Management) checks the product's Ocp-Apim-Subscription-Key
 * before anything else: each product has its own key, so the other product's key is invalid here.
 */
export function checkSubscriptionKey(
  state: SimulatorState,
  request: IncomingMessage,
  product: ProductName,
): Refusal | undefined {
  const key = header(request, 'Ocp-Apim-Subscription-Key')
  if (key === undefined || key === '') return refusals.missingSubscriptionKey()
  return key === state.config.credentials[product].subscriptionKey
    ? undefined
    : refusals.invalidSubscriptionKey()
}

/** `Authorization: Basic base64(apiUser:apiKey)` of this product's API user, for POST /{product}/token/. */
export function checkBasicCredentials(
  state: SimulatorState,
  request: IncomingMessage,
  product: ProductName,
): Refusal | undefined {
  const match = /^basic\s+(\S+)$/i.exec(header(request, 'Authorization') ?? '')
  if (match?.[1] === undefined) return refusals.loginFailed()
  const decoded = Buffer.from(match[1], 'base64').toString('utf8')
  const separator = decoded.indexOf(':')
  const { apiUser, apiKey } = state.config.credentials[product]
  const valid =
    separator !== -1 && decoded.slice(0, separator) === apiUser && decoded.slice(separator + 1) === apiKey
  return valid ? undefined : refusals.loginFailed()
}

/**
 * What every API call but the token one needs: the subscription key, a live bearer token issued
 * for this product, and the X-Target-Environment of the API user's wallet.
 */
export function checkApiCall(
  state: SimulatorState,
  request: IncomingMessage,
  product: ProductName,
): Refusal | undefined {
  const keyRefusal = checkSubscriptionKey(state, request, product)
  if (keyRefusal) return keyRefusal
  const bearer = /^bearer\s+(\S+)$/i.exec(header(request, 'Authorization') ?? '')?.[1]
  if (bearer === undefined || !state.tokens.accepts(bearer, product)) return refusals.invalidAccessToken()
  const environment = header(request, 'X-Target-Environment')
  if (environment === undefined || environment === '') {
    return refusals.badRequest('X-Target-Environment is required.')
  }
  return environment === state.config.targetEnvironment ? undefined : refusals.targetEnvironmentNotAllowed()
}
