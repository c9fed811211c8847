import type { SideRole } from '../domain/kinds.ts'
import type { ProviderNotification, ProviderRequest } from './provider.ts'

/** Asked again soon after a submission, then less often (2 s to 1 min): a notification that never comes strands nothing. */
export function pollDelayMs(request: ProviderRequest, nowUs: number): number {
  const elapsedMs = request.submittedAtUs === undefined ? 0 : (nowUs - request.submittedAtUs) / 1000
  return Math.min(60_000, Math.max(2_000, Math.round(elapsedMs / 2)))
}

const roles: readonly string[] = ['main', 'from', 'to'] satisfies SideRole[]

/**
 * An unsigned notification (MTN, Orange) names its side only by the token and role Sika put on
 * the callback URL; it proves nothing, so it asks for a status check rather than settling.
 */
export function unsignedNotification(query: URLSearchParams | undefined): ProviderNotification | undefined {
  const token = query?.get('token')
  const role = query?.get('role')
  if (!token || !role || !roles.includes(role)) return undefined
  return { side: { token, role: role as SideRole }, outcome: { status: 'pending' }, confirm: true }
}
