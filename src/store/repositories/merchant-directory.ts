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
  /** The page after this (name, id), in name order. */
  after?: { name: string; id: string }
  limit: number
}

export interface MerchantEntry {
  id: string
  name: string
  status: MerchantStatus
  createdAtUs: number
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
  { text, status, after, limit }: MerchantSearch,
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
  if (after) query = query.where((eb) => eb(eb.refTuple('name', 'id'), '>', eb.tuple(after.name, after.id)))
  const rows = await query.orderBy('name').orderBy('id').limit(limit).execute()
  return rows.map(toEntry)
}

function toEntry(row: {
  id: string
  name: string
  status: MerchantStatus
  created_at_us: number
}): MerchantEntry {
  return { id: row.id, name: row.name, status: row.status, createdAtUs: Number(row.created_at_us) }
}
