/** A dashboard member's role, least to most trusted. */
export const roles = ['viewer', 'support', 'finance', 'developer', 'admin', 'owner'] as const
export type Role = (typeof roles)[number]
