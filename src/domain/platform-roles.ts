/** A platform member's role in the console (CONTRACT.md, Platform console). */
export const platformRoles = ['analyst', 'support', 'risk', 'finance', 'admin'] as const
export type PlatformRole = (typeof platformRoles)[number]

/**
 * What a platform member may do; every console page and action names the one it needs.
 * `recheck` is asking an operator for an operation's status again; `merchants` is suspending or
 * activating a merchant; `payouts` pausing or resuming its payouts; `team` inviting, changing
 * roles, removing members and ending their sessions; `onboard` creating a merchant and inviting
 * its first owner; `members` helping a merchant's members who cannot sign in (resetting one's
 * authenticator, inviting one again). The contract's table names `members` for no role; it is
 * admin's alone, as the platform team's own members are: inviting a member again closes their
 * account and hands a new one to whoever opens the URL, so it is the right of the role that
 * already invites and removes people. `export` is a merchant's statement CSV, finance's.
 */
export type PlatformPermission =
  | 'read'
  | 'resend'
  | 'recheck'
  | 'merchants'
  | 'payouts'
  | 'limits'
  | 'fees'
  | 'reconciliation'
  | 'export'
  | 'team'
  | 'onboard'
  | 'members'

/** The contract's table of roles: each row lists what the role may do, inherited rights included. */
const permissionsOf: Record<PlatformRole, readonly PlatformPermission[]> = {
  analyst: ['read'],
  support: ['read', 'resend', 'recheck'],
  risk: ['read', 'merchants', 'payouts', 'limits'],
  finance: ['read', 'fees', 'reconciliation', 'export'],
  admin: [
    'read',
    'resend',
    'recheck',
    'merchants',
    'payouts',
    'limits',
    'fees',
    'reconciliation',
    'export',
    'team',
    'onboard',
    'members',
  ],
}

export function platformMay(role: PlatformRole, permission: PlatformPermission): boolean {
  return permissionsOf[role].includes(permission)
}

export function isPlatformRole(value: unknown): value is PlatformRole {
  return typeof value === 'string' && (platformRoles as readonly string[]).includes(value)
}
