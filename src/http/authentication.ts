import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { AppContext } from '../app/context.ts'
import { authenticate, type Principal } from '../app/merchants.ts'
import { ApiError } from '../errors.ts'
import { credentialsChecked } from './key-proofs.ts'
import { rateLimitsOf } from './rate-limit.ts'

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal
  }
}

/**
 * Registered inside the /api/v1 scope only: health, docs and unknown routes need no keys. A pair
 * (api-key, address) or an address that has failed authentication too often is refused before its
 * credentials are looked up, and each failure counts; an authenticated request then counts against
 * its api-key's rate limit (unless the front door counted it already), a request without
 * credentials against its address's.
 */
export function requireCredentials(app: FastifyInstance, context: AppContext): void {
  const limits = rateLimitsOf(app)
  app.decorateRequest('principal', null as unknown as Principal)
  app.addHook('onRequest', async (request, reply) => {
    const apiKey = header(request, 'api-key')
    const refusal = limits.refuseWhileFailing(request, apiKey)
    if (refusal) await refusal
    try {
      request.principal = await authenticate(context, apiKey, header(request, 'secret-key'))
    } catch (error) {
      credentialsChecked(request.raw)
      if (error instanceof ApiError && error.code === 'invalid_credentials')
        await limits.countFailure(request, reply, apiKey)
      else await limits.perKey(request, reply)
      throw error
    }
    // The requests of this key that waited for it at the front door are proven now (key-proofs.ts).
    credentialsChecked(request.raw)
    await limits.perKey(request, reply)
  })
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name]
  return typeof value === 'string' ? value : undefined
}
