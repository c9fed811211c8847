import { type Mode, modes } from '../../domain/kinds.ts'
import type { Operation } from '../../domain/operation.ts'
import type { BalanceView } from '../../store/repositories/ledger.ts'
import type { MerchantEntry } from '../../store/repositories/merchant-directory.ts'
import type { MerchantStatus } from '../../store/repositories/merchants.ts'
import type { AppContext } from '../context.ts'

export type { MerchantEntry }

export const merchantPageSize = 50
/** The latest operations a merchant's summary shows per mode. */
export const latestOperationsShown = 10

export interface MerchantQuery {
  q?: string
  status?: MerchantStatus
  /** Only the merchants whose payouts the platform paused. */
  payoutsPaused?: boolean
  /** Where the page starts: after this merchant in name order. */
  after?: { name: string; id: string }
}

export interface MerchantPage {
  merchants: MerchantEntry[]
  next: { name: string; id: string } | undefined
}

/** The console's merchants: by a part of the name, the id or a member's email, with a status filter, by name. */
export async function searchMerchants(context: AppContext, query: MerchantQuery): Promise<MerchantPage> {
  const found = await context.store.merchantDirectory.search({
    text: query.q ?? '',
    ...(query.status ? { status: query.status } : {}),
    ...(query.payoutsPaused ? { payoutsPaused: true } : {}),
    ...(query.after ? { after: query.after } : {}),
    limit: merchantPageSize + 1,
  })
  const merchants = found.slice(0, merchantPageSize)
  const last = merchants.at(-1)
  return {
    merchants,
    next: found.length > merchantPageSize && last ? { name: last.name, id: last.id } : undefined,
  }
}

export interface MerchantMemberSummary {
  id: string
  email: string
  name: string
  role: string
  /** Has set a password and TOTP: has signed in at least once. */
  enrolled: boolean
  createdAtUs: number
}

export interface MerchantSummary {
  merchant: MerchantEntry
  /** Per mode and currency. */
  balances: BalanceView[]
  /** Newest first, `latestOperationsShown` per mode. */
  latestOperations: Record<Mode, Operation[]>
  members: MerchantMemberSummary[]
}

/** A merchant's page in the console: its status, balances per mode and currency, latest operations and members; undefined when no merchant has this id. */
export async function merchantSummary(
  context: AppContext,
  merchantId: string,
): Promise<MerchantSummary | undefined> {
  const { store } = context
  const merchant = await store.merchantDirectory.find(merchantId)
  if (!merchant) return undefined
  const [balances, members, ...latest] = await Promise.all([
    store.ledger.balances(merchantId),
    store.members.listMembers(merchantId),
    ...modes.map((mode) => store.operationSearch.list(merchantId, mode, { limit: latestOperationsShown })),
  ])
  return {
    merchant,
    balances,
    latestOperations: Object.fromEntries(
      modes.map((mode, index) => [mode, latest[index]?.items ?? []]),
    ) as Record<Mode, Operation[]>,
    members: members.map((member) => ({
      id: member.id,
      email: member.email,
      name: member.name,
      role: member.role,
      enrolled: member.passwordHash !== null && member.totpSealed !== null,
      createdAtUs: member.createdAtUs,
    })),
  }
}
