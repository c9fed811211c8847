import type { EntryStatus, EntryType } from './ledger-rules.ts'

/**
 * What a ledger line means to a person reconciling, beside its exact type and status. The ledger
 * keeps every hold and its release; a transfer holds back what it received until its recipient is
 * paid, in case the sender must be refunded, and releases it when the recipient is: a line that
 * moves nothing, which reads as "Reversal · Canceled" unless it is said in words.
 */
export const movementMeanings = [
  'received',
  'received-from-sender',
  'payout-held',
  'paid-out',
  'payout-released',
  'paid-to-recipient',
  'recipient-payout-released',
  'refund-held',
  'refunded',
  'refund-released',
  'reserve-held',
  'sent-back-to-sender',
  'reserve-released',
] as const

export type MovementMeaning = (typeof movementMeanings)[number]

export interface MovementLine {
  operationKind: string
  type: EntryType
  status: EntryStatus
}

const byStatus = (
  status: EntryStatus,
  pending: MovementMeaning,
  done: MovementMeaning,
  released: MovementMeaning,
) => (status === 'pending' ? pending : status === 'succeeded' ? done : released)

export function movementMeaning({ operationKind, type, status }: MovementLine): MovementMeaning {
  const transfer = operationKind === 'transfer'
  if (type === 'cash-in') return transfer ? 'received-from-sender' : 'received'
  if (type === 'cash-out')
    return transfer
      ? byStatus(status, 'payout-held', 'paid-to-recipient', 'recipient-payout-released')
      : byStatus(status, 'payout-held', 'paid-out', 'payout-released')
  if (operationKind === 'refund') return byStatus(status, 'refund-held', 'refunded', 'refund-released')
  return byStatus(status, 'reserve-held', 'sent-back-to-sender', 'reserve-released')
}

/** Whether the line moved no money: a hold released. */
export function movedNothing(line: MovementLine): boolean {
  return line.status === 'canceled'
}

/** The order an operation's money takes effect: it comes in, goes out, and only then is its reserve settled. */
const effectRank: Record<EntryType, number> = { 'cash-in': 0, 'cash-out': 1, reversal: 2 }

/**
 * Lines listed newest first, each operation's lines kept together where its newest line stands and
 * put in the order its money took effect, newest first. A transfer holds its payout when it is
 * made, before the sender has paid; listed by when each line was written, the payout would read
 * as paid before the money came in.
 */
export function inEffectOrder<Line extends MovementLine & { token: string }>(lines: readonly Line[]): Line[] {
  const groups = new Map<string, Line[]>()
  for (const line of lines) groups.set(line.token, [...(groups.get(line.token) ?? []), line])
  return [...groups.values()].flatMap((group) =>
    [...group].sort((a, b) => effectRank[b.type] - effectRank[a.type]),
  )
}
