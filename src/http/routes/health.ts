import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../../app/context.ts'
import { ApiError } from '../../errors.ts'

export function healthRoutes(app: FastifyInstance, context: AppContext): void {
  app.get('/health', async () => ({ status: 'ok' }))
  app.get('/ready', async () => {
    try {
      await context.store.ping()
    } catch {
      throw new ApiError('unavailable', 'The database cannot be reached.')
    }
    return { status: 'ready', store: context.store.dialect.name }
  })
}
