import type { DashboardRefusal } from '../../app/dashboard/refusals.ts'
import type { PageContext } from './layout.tsx'

/** A refusal in the member's words, with the values it names (a lock's end, what is left). */
export function refusalText(page: PageContext<string>, refusal: DashboardRefusal): string {
  const { refusals } = page.t
  const details = refusal.details ?? {}
  switch (refusal.refused) {
    case 'address_throttled':
      return refusals.address_throttled(Number(details.minutes ?? 15))
    case 'password_too_short':
      return refusals.password_too_short(Number(details.minimum ?? 12))
    case 'csv_unreadable':
      return refusals.csv_unreadable(Number(details.line ?? 1))
    case 'csv_too_many_rows':
      return refusals.csv_too_many_rows(Number(details.rows ?? 0), Number(details.largest ?? 1000))
    default:
      return refusals[refusal.refused]
  }
}

export function RefusalNote({ page, refusal }: { page: PageContext<string>; refusal: DashboardRefusal }) {
  return (
    <p class="error" role="alert">
      {refusalText(page, refusal)}
    </p>
  )
}
