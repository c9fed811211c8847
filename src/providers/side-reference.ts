import type { SideRole } from '../domain/kinds.ts'

/**
 * The `<token>.<role>` Sika sends operators as its own reference of a side (Wave's
 * `client_reference`, pawaPay's `clientReferenceId`), read back from what an operator echoes.
 */
export function sideOfClientReference(value: unknown): { token: string; role: SideRole } | undefined {
  if (typeof value !== 'string') return undefined
  const [token, role, ...rest] = value.split('.')
  if (!token || rest.length > 0 || (role !== 'main' && role !== 'from' && role !== 'to')) return undefined
  return { token, role }
}
