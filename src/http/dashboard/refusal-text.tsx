import type { DashboardRefusal } from '../../app/dashboard/refusals.ts'
import { formatInstant } from './format.ts'
import type { PageContext } from './layout.tsx'

/** A refusal in the member's words, with the values it names (a lock's end, what is left). */
export function refusalText(page: PageContext, refusal: DashboardRefusal): string {
  const { refusals } = page.t
  const details = refusal.details ?? {}
  const zone = page.member?.timeZone ?? 'UTC'
  switch (refusal.refused) {
    case 'account_locked':
      return refusals.account_locked(formatInstant(Number(details.untilUs ?? 0), page.locale, zone))
    case 'address_throttled':
      return refusals.address_throttled(Number(details.minutes ?? 15))
    case 'password_too_short':
      return refusals.password_too_short(Number(details.minimum ?? 12))
    default:
      return refusals[refusal.refused]
  }
}

export function RefusalNote({ page, refusal }: { page: PageContext; refusal: DashboardRefusal }) {
  return (
    <p class="error" role="alert">
      {refusalText(page, refusal)}
    </p>
  )
}
