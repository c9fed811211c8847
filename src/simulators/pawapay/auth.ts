import type { IncomingMessage } from 'node:http'
import { type Refusal, technical } from './errors.ts'
import { header } from './http-io.ts'
import type { SimulatorState } from './state.ts'

/**
 * Every call needs `Authorization: Bearer <API token>`: none is NO_AUTHENTICATION (401), another
 * token AUTHENTICATION_ERROR (401 by default, see the invalidTokenStatus option).
 */
export function checkBearer(state: SimulatorState, request: IncomingMessage): Refusal | undefined {
  const authorization = header(request, 'Authorization')
  if (authorization === undefined || authorization.trim() === '') return technical.noAuthentication()
  const token = /^bearer\s+(\S+)\s*$/i.exec(authorization)?.[1]
  if (token === undefined || !state.tokens.accepts(token)) {
    return technical.authenticationError(state.config.invalidTokenStatus)
  }
  return undefined
}
