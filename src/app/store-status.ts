import type { AppContext } from './context.ts'

/* What the edges may know of the store, without holding it: its name and whether it answers. */

/** `sqlite` or `postgres`, as health and the start log name the store. */
export function storeName(context: AppContext): 'sqlite' | 'postgres' {
  return context.store.name
}

/** Resolves once the store answers a query; rejects after `boundMs` or when it cannot. */
export function checkStoreAnswers(context: AppContext, boundMs: number): Promise<void> {
  return context.store.ping(boundMs)
}

/** Whether an error means the store is out of reach (a timeout, a lost connection), so the answer is 503. */
export function isStoreUnavailable(context: AppContext, error: unknown): boolean {
  return context.store.isUnavailable(error)
}
