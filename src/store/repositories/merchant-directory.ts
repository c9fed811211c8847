import { sql } from 'kysely'
import type { Executor, RepositoryScope } from './executor.ts'
import type { MerchantStatus } from './merchants.ts'

/**
 * The platform console's list of merchants: a search by name, id or a member's email, filtered on
 * status, a page at a time by name. Merchants are thousands, not millions: a name that contains
 * the text is found by reading the merchants' rows; an id through the primary key and a member's
 * email through members_active_email.
 */
export interface MerchantDirectoryRepository {
  search(query: MerchantSearch): Promise<MerchantEntry[]>
  find(merchantId: string): Promise<MerchantEntry | undefined>
}

export interface MerchantSearch {
  /** A part of the name (any case), the whole id, or a member's whole email; empty: every merchant. */
  text: string
  status?: MerchantStatus
  /** Only the merchants whose payouts the platform paused. */
  payoutsPaused?: boolean
  /** The page after this (name, id), in name order. */
  after?: { name: string; id: string }
  limit: number
}

export interface MerchantEntry {
  id: string
  name: string
  status: MerchantStatus
  createdAtUs: number
  /** When the platform paused its payouts; null while they are not paused. */
  payoutsPausedAtUs: number | null
}

export function merchantDirectoryRepository({ db }: RepositoryScope): MerchantDirectoryRepository {
  return {
    search: (query) => search(db, query),
    find: async (merchantId) => {
      const row = await db.selectFrom('merchants').selectAll().where('id', '=', merchantId).executeTakeFirst()
      return row && toEntry(row)
    },
  }
}

async function search(
  db: Executor,
  { text, status, payoutsPaused, after, limit }: MerchantSearch,
): Promise<MerchantEntry[]> {
  let query = db.selectFrom('merchants').selectAll()
  const trimmed = text.trim()
  if (trimmed !== '') {
    const pattern = `%${trimmed.toLowerCase().replace(/[\\%_]/g, (character) => `\\${character}`)}%`
    query = query.where((eb) =>
      eb.or([
        eb('id', '=', trimmed),
        eb(sql`lower(name)`, 'like', sql`${pattern} escape '\\'`),
        eb(
          'id',
          'in',
          eb
            .selectFrom('members')
            .select('members.merchant_id')
            .where('members.email', '=', trimmed.toLowerCase())
            .where('members.removed_at_us', 'is', null),
        ),
      ]),
    )
  }
  if (status) query = query.where('status', '=', status)
  if (payoutsPaused) query = query.where('payouts_paused_at_us', 'is not', null)
  if (after) query = query.where((eb) => eb(eb.refTuple('name', 'id'), '>', eb.tuple(after.name, after.id)))
  const rows = await query.orderBy('name').orderBy('id').limit(limit).execute()
  return rows.map(toEntry)
}

function toEntry(row: {
  id: string
  name: string
  status: MerchantStatus
  created_at_us: number
  payouts_paused_at_us: number | null
}): MerchantEntry {
  return {
    id: row.id,
    name: row.name,
    status: row.status,
    createdAtUs: Number(row.created_at_us),
    payoutsPausedAtUs: row.payouts_paused_at_us === null ? null : Number(row.payouts_paused_at_us),
  }
}
