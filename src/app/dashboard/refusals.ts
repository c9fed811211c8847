/**
 * Why the dashboard refuses what a member asked, as values: each page says it in the member's
 * language from its catalogue's `refusals` table, which has one sentence per code.
 */
export type DashboardRefusalCode =
  | 'sign_in_failed'
  | 'account_locked'
  | 'address_throttled'
  | 'password_checks_busy'
  | 'code_wrong'
  | 'invitation_unusable'
  | 'password_too_short'
  | 'password_wrong'
  | 'name_missing'
  | 'email_invalid'
  | 'role_invalid'
  | 'member_exists'
  | 'member_unknown'
  | 'last_owner'
  | 'last_admin'
  | 'not_allowed'
  | 'csv_unreadable'
  | 'csv_columns'
  | 'csv_empty'
  | 'csv_too_many_rows'
  | 'batch_has_errors'
  | 'batch_mixed_currencies'
  | 'approver_is_creator'
  | 'batch_not_awaiting'

export interface DashboardRefusal {
  refused: DashboardRefusalCode
  /** Values the sentence names: the lock's end, what is left to refund. */
  details?: Record<string, string | number>
}

export function refusal(
  code: DashboardRefusalCode,
  details?: Record<string, string | number>,
): DashboardRefusal {
  return details ? { refused: code, details } : { refused: code }
}

export function isRefusal(value: unknown): value is DashboardRefusal {
  return typeof value === 'object' && value !== null && 'refused' in value
}
