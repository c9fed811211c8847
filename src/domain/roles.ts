/** A member's role in a merchant's dashboard (CONTRACT.md, Dashboard), from least to most. */
export const roles = ['viewer', 'support', 'finance', 'developer', 'admin', 'owner'] as const
export type Role = (typeof roles)[number]

/**
 * What a member may do; every page and action names the one it needs. `batches` is creating,
 * approving and rejecting payout batches; `links` is creating and closing payment links.
 */
export type Permission =
  | 'read'
  | 'resend'
  | 'refund'
  | 'cancel'
  | 'export'
  | 'batches'
  | 'links'
  | 'keys'
  | 'team'
  | 'settings'

/** The contract's table of roles: each row lists what the role may do, inherited rights included. */
const permissionsOf: Record<Role, readonly Permission[]> = {
  viewer: ['read'],
  support: ['read', 'resend'],
  finance: ['read', 'resend', 'refund', 'cancel', 'export', 'batches', 'links'],
  developer: ['read', 'resend', 'keys'],
  admin: ['read', 'resend', 'refund', 'cancel', 'export', 'batches', 'links', 'keys', 'team'],
  owner: ['read', 'resend', 'refund', 'cancel', 'export', 'batches', 'links', 'keys', 'team', 'settings'],
}

export function may(role: Role, permission: Permission): boolean {
  return permissionsOf[role].includes(permission)
}

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (roles as readonly string[]).includes(value)
}
