import { type ExpressionBuilder, type Selectable, sql } from 'kysely'
import type { Mode } from '../../domain/kinds.ts'
import type { Currency } from '../../domain/money.ts'
import type { Metadata } from '../../domain/operation.ts'
import type { Page, PageRequest } from '../../domain/pages.ts'
import type { PaymentLink, PaymentLinkStatus, PaymentLinkTally } from '../../domain/payment-links.ts'
import type { Database, PaymentLinksTable } from '../schema.ts'
import type { Executor, RepositoryScope } from './executor.ts'
import type { MerchantStatus } from './merchants.ts'

/** A link with what its collects add up to. */
export interface TalliedLink {
  link: PaymentLink
  tally: PaymentLinkTally
}

/** A link found by its token alone (the hosted page), with its merchant's name and status. */
export interface PublicLink extends TalliedLink {
  merchantName: string
  merchantStatus: MerchantStatus
}

/** The list's filters (CONTRACT.md, Lists): from inclusive, to exclusive, on the creation time. */
export interface PaymentLinkFilter {
  status?: PaymentLinkStatus
  merchantReference?: string
  fromUs?: number
  toUs?: number
  nowUs: number
}

export interface PaymentLinksRepository {
  /** Inserts the link under its unique merchantReference; false when the reference is taken. */
  insertIfNew(link: PaymentLink): Promise<boolean>
  findByReference(merchantId: string, mode: Mode, merchantReference: string): Promise<PaymentLink | undefined>
  /** Another merchant's token, or the other mode's, is not found. */
  findByToken(merchantId: string, mode: Mode, token: string): Promise<TalliedLink | undefined>
  findAnyByToken(token: string): Promise<PublicLink | undefined>
  /** Newest first; a status filter reads the status as of `filter.nowUs`, as the record shows it. */
  list(
    merchantId: string,
    mode: Mode,
    filter: PaymentLinkFilter,
    page: PageRequest,
  ): Promise<Page<TalliedLink>>
  /** Closes the link unless it already is; the time it was closed either way. */
  close(merchantId: string, mode: Mode, token: string, nowUs: number): Promise<number | undefined>
  /** The number of the link's next collect (1, 2, 3...): one conditional UPDATE, so two instances never share one. */
  nextNumber(token: string): Promise<number>
  /**
   * A single-use link's claim for a payment: taken only while the claim is still `expected` (the
   * number of the payment last claimed, or null), so two customers racing cannot both take it.
   * The new claim's number, or undefined when another took it first.
   */
  claim(token: string, expected: number | null, nowUs: number): Promise<number | undefined>
  /** Gives back a claim whose payment was never created; a newer claim is left alone. */
  release(token: string, number: number): Promise<void>
  /** The claim a single-use link holds: the number of its payment in flight, and when it was taken. */
  claimOf(token: string): Promise<{ number: number | null; claimedAtUs: number | null }>
}

export function paymentLinksRepository({ db }: RepositoryScope): PaymentLinksRepository {
  const links = () => db.selectFrom('payment_links').selectAll()
  return {
    async insertIfNew(link) {
      const inserted = await db
        .insertInto('payment_links')
        .values(toRow(link))
        .onConflict((conflict) => conflict.columns(['merchant_id', 'mode', 'merchant_reference']).doNothing())
        .returning('token')
        .executeTakeFirst()
      return inserted !== undefined
    },
    async findByReference(merchantId, mode, merchantReference) {
      const row = await links()
        .where('merchant_id', '=', merchantId)
        .where('mode', '=', mode)
        .where('merchant_reference', '=', merchantReference)
        .executeTakeFirst()
      return row && toLink(row)
    },
    async findByToken(merchantId, mode, token) {
      const row = await links()
        .where('token', '=', token)
        .where('merchant_id', '=', merchantId)
        .where('mode', '=', mode)
        .executeTakeFirst()
      return row && (await tallied(db, [toLink(row)]))[0]
    },
    findAnyByToken: (token) => findAnyByToken(db, token),
    list: (merchantId, mode, filter, page) => listLinks(db, merchantId, mode, filter, page),
    async close(merchantId, mode, token, nowUs) {
      await db
        .updateTable('payment_links')
        .set({ closed_at_us: nowUs })
        .where('token', '=', token)
        .where('merchant_id', '=', merchantId)
        .where('mode', '=', mode)
        .where('closed_at_us', 'is', null)
        .execute()
      const row = await links().where('token', '=', token).executeTakeFirst()
      return row?.closed_at_us ?? undefined
    },
    async nextNumber(token) {
      const row = await db
        .updateTable('payment_links')
        .set({ attempts: sql`attempts + 1` })
        .where('token', '=', token)
        .returning('attempts')
        .executeTakeFirstOrThrow()
      return row.attempts
    },
    ...claimsOn(db),
  }
}

/** A single-use link's claim on its one payment in flight (app/payment-links/pay.ts). */
function claimsOn(db: Executor): Pick<PaymentLinksRepository, 'claim' | 'release' | 'claimOf'> {
  return {
    async claim(token, expected, nowUs) {
      const row = await db
        .updateTable('payment_links')
        .set({ attempts: sql`attempts + 1`, claim_number: sql`attempts + 1`, claimed_at_us: nowUs })
        .where('token', '=', token)
        .where('claim_number', expected === null ? 'is' : '=', expected)
        .returning('attempts')
        .executeTakeFirst()
      return row?.attempts
    },
    async release(token, number) {
      await db
        .updateTable('payment_links')
        .set({ claim_number: null, claimed_at_us: null })
        .where('token', '=', token)
        .where('claim_number', '=', number)
        .execute()
    },
    async claimOf(token) {
      const row = await db
        .selectFrom('payment_links')
        .select(['claim_number', 'claimed_at_us'])
        .where('token', '=', token)
        .executeTakeFirstOrThrow()
      return { number: row.claim_number, claimedAtUs: row.claimed_at_us }
    },
  }
}

async function findAnyByToken(db: Executor, token: string): Promise<PublicLink | undefined> {
  const row = await db
    .selectFrom('payment_links')
    .innerJoin('merchants', 'merchants.id', 'payment_links.merchant_id')
    .selectAll('payment_links')
    .select(['merchants.name as merchant_name', 'merchants.status as merchant_status'])
    .where('payment_links.token', '=', token)
    .executeTakeFirst()
  if (!row) return undefined
  const [found] = await tallied(db, [toLink(row)])
  return { ...found!, merchantName: row.merchant_name, merchantStatus: row.merchant_status }
}

async function listLinks(
  db: Executor,
  merchantId: string,
  mode: Mode,
  filter: PaymentLinkFilter,
  page: PageRequest,
) {
  let base = db.selectFrom('payment_links').where('merchant_id', '=', merchantId).where('mode', '=', mode)
  if (filter.merchantReference !== undefined)
    base = base.where('merchant_reference', '=', filter.merchantReference)
  if (filter.fromUs !== undefined) base = base.where('created_at_us', '>=', filter.fromUs)
  if (filter.toUs !== undefined) base = base.where('created_at_us', '<', filter.toUs)
  const { status, nowUs } = filter
  if (status !== undefined) base = base.where((eb) => hasStatus(eb, status, nowUs))
  const [counted, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
    base
      .selectAll()
      .orderBy('created_at_us', 'desc')
      .orderBy('token', 'desc')
      .limit(page.perPage)
      .offset((page.page - 1) * page.perPage)
      .execute(),
  ])
  return { items: await tallied(db, rows.map(toLink)), total: Number(counted.total) }
}

/**
 * domain/payment-links.ts's paymentLinkStatus, as a condition on the row: closed, else completed
 * (single-use with a succeeded collect), else expired (at or past expiresAt), else active.
 */
function hasStatus(
  eb: ExpressionBuilder<Database, 'payment_links'>,
  status: PaymentLinkStatus,
  nowUs: number,
) {
  const closed = eb('payment_links.closed_at_us', 'is not', null)
  const open = eb('payment_links.closed_at_us', 'is', null)
  const paid = eb.exists(
    eb
      .selectFrom('operations')
      .select(sql.lit(1).as('one'))
      .whereRef('operations.payment_link', '=', 'payment_links.token')
      .where('operations.status', '=', 'succeeded'),
  )
  const spent = eb.and([eb('payment_links.reusable', '=', 0), paid])
  const past = eb('payment_links.expires_at_us', '<=', nowUs)
  if (status === 'closed') return closed
  if (status === 'completed') return eb.and([open, spent])
  if (status === 'expired') return eb.and([open, eb.not(spent), past])
  return eb.and([open, eb.not(spent), eb('payment_links.expires_at_us', '>', nowUs)])
}

/**
 * What each link's succeeded collects add up to, in one statement. A collect's refundable_minor
 * is its amount (what the link asked the customer for, before fees), so it is summed here.
 */
async function tallied(db: Executor, links: PaymentLink[]): Promise<TalliedLink[]> {
  if (links.length === 0) return []
  const rows = await db
    .selectFrom('operations')
    .select((eb) => [
      'payment_link',
      eb.fn.countAll<number>().as('payments'),
      eb.fn.sum<number>('refundable_minor').as('collected'),
    ])
    .where(
      'payment_link',
      'in',
      links.map((link) => link.token),
    )
    .where('status', '=', 'succeeded')
    .groupBy('payment_link')
    .execute()
  const byToken = new Map(rows.map((row) => [row.payment_link, row]))
  return links.map((link) => {
    const row = byToken.get(link.token)
    return {
      link,
      tally: { paymentCount: Number(row?.payments ?? 0), collectedMinor: Number(row?.collected ?? 0) },
    }
  })
}

function toRow(link: PaymentLink) {
  return {
    token: link.token,
    merchant_id: link.merchantId,
    mode: link.mode,
    merchant_reference: link.merchantReference,
    request_hash: link.requestHash,
    description: link.description,
    country: link.country,
    currency: link.currency,
    amount_minor: link.amountMinor,
    min_minor: link.range?.minMinor ?? null,
    max_minor: link.range?.maxMinor ?? null,
    channels: JSON.stringify(link.channels),
    reusable: link.reusable ? 1 : 0,
    expires_at_us: link.expiresAtUs,
    callback_url: link.callbackUrl,
    succeeded_url: link.succeededUrl,
    metadata: link.metadata ? JSON.stringify(link.metadata) : null,
    created_at_us: link.createdAtUs,
    closed_at_us: link.closedAtUs,
  }
}

function toLink(row: Selectable<PaymentLinksTable>): PaymentLink {
  const range =
    row.min_minor === null || row.max_minor === null
      ? null
      : { minMinor: Number(row.min_minor), maxMinor: Number(row.max_minor) }
  return {
    token: row.token,
    merchantId: row.merchant_id,
    mode: row.mode as Mode,
    merchantReference: row.merchant_reference,
    requestHash: row.request_hash,
    description: row.description,
    country: row.country,
    currency: row.currency as Currency,
    amountMinor: row.amount_minor === null ? null : Number(row.amount_minor),
    range,
    channels: JSON.parse(row.channels) as string[],
    reusable: Number(row.reusable) === 1,
    expiresAtUs: Number(row.expires_at_us),
    callbackUrl: row.callback_url,
    succeededUrl: row.succeeded_url,
    ...(row.metadata === null ? {} : { metadata: JSON.parse(row.metadata) as Metadata }),
    createdAtUs: Number(row.created_at_us),
    closedAtUs: row.closed_at_us === null ? null : Number(row.closed_at_us),
  }
}
