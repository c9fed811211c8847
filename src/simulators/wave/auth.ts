import type { IncomingMessage } from 'node:http'
import { authRefusals, type Refusal } from './errors.ts'
import { header } from './http-io.ts'
import type { SimulatorState } from './state.ts'

/**
 * `Authorization: Bearer <api key>` on every call, checked in the order of the docs' table of
 * authentication errors: no header, a header that is not Bearer, Bearer without a key, a key that
 * does not exist, a revoked key. Keys never expire, so there is no token to refresh.
 */
export function checkApiKey(state: SimulatorState, request: IncomingMessage): Refusal | undefined {
  const value = header(request, 'Authorization')
  if (value === undefined || value.trim() === '') return authRefusals.missingAuthHeader()
  const match = /^bearer(?:\s+(.*))?$/i.exec(value.trim())
  if (match === null) return authRefusals.invalidAuth()
  const key = (match[1] ?? '').trim()
  if (key === '') return authRefusals.apiKeyNotProvided()
  if (key !== state.config.apiKey) return authRefusals.noMatchingApiKey()
  return state.apiKeyRevoked ? authRefusals.apiKeyRevoked() : undefined
}
