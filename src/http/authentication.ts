import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { AppContext } from '../app/context.ts'
import { authenticate, type Principal } from '../app/merchants.ts'

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal
  }
}

/** Registered inside the /api/v1 scope only: health, docs and unknown routes need no keys. */
export function requireCredentials(app: FastifyInstance, context: AppContext): void {
  app.decorateRequest('principal', null as unknown as Principal)
  app.addHook('onRequest', async (request) => {
    request.principal = await authenticate(context, header(request, 'api-key'), header(request, 'secret-key'))
  })
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name]
  return typeof value === 'string' ? value : undefined
}
