import type { FastifyInstance } from 'fastify'
import {
  createMerchantWithOwner,
  type NewMerchant,
  type NewMerchantRefusal,
} from '../../../app/console/merchant-creation.ts'
import {
  type MerchantPage,
  type MerchantQuery,
  searchMerchants,
} from '../../../app/console/merchant-directory.ts'
import type { AppContext } from '../../../app/context.ts'
import type { MerchantEntry } from '../../../store/repositories/merchant-directory.ts'
import { sendPage } from '../../dashboard/respond.ts'
import {
  type Column,
  CsrfInput,
  Notification,
  Pagination,
  Section,
  showInstant,
  Table,
} from '../../pages/kit/index.ts'
import { type ConsoleGuard, consoleActorOf } from '../guard.ts'
import { type ConsolePage, consoleAllows, consolePage } from '../layout.tsx'
import { type MerchantWords, merchantWordsOf } from '../messages/merchants.ts'
import { consoleMerchantRoutes } from './merchant.tsx'
import { consoleMerchantMembersRoutes } from './merchant-members.tsx'
import { consoleMerchantStatementRoutes } from './merchant-statement.tsx'

type Filter = { q: string; status: string; afterName?: string; afterId?: string }

const statusFilters = ['active', 'suspended', 'payouts_paused'] as const

/**
 * The merchants of the platform: every role searches them by name, id or a member's email; admin
 * creates one and invites its first owner.
 */
export function consoleMerchantsRoutes(app: FastifyInstance, context: AppContext, guard: ConsoleGuard): void {
  app.get('/console/merchants', async (request, reply) => {
    const signedIn = await guard.member(request, reply, 'read')
    if (!signedIn) return reply
    const raw = request.query as Record<string, string | undefined>
    const filter: Filter = {
      q: (raw.q ?? '').slice(0, 200),
      status: statusFilters.find((status) => status === raw.status) ?? '',
      ...(raw.afterName && raw.afterId ? { afterName: raw.afterName, afterId: raw.afterId } : {}),
    }
    const query: MerchantQuery = {
      q: filter.q,
      ...(filter.status === 'payouts_paused' ? { payoutsPaused: true } : {}),
      ...(filter.status === 'active' || filter.status === 'suspended' ? { status: filter.status } : {}),
      ...(filter.afterName && filter.afterId
        ? { after: { name: filter.afterName, id: filter.afterId } }
        : {}),
    }
    const found = await searchMerchants(context, query)
    return sendPage(reply, 200, merchantsPage(signedIn.page, filter, found))
  })
  app.post('/console/merchants', async (request, reply) => {
    const signedIn = await guard.member(request, reply, 'onboard')
    if (!signedIn) return reply
    const form = (request.body ?? {}) as Record<string, string | undefined>
    const actor = consoleActorOf(signedIn, request)
    const created = await createMerchantWithOwner(context, actor, {
      name: form.name ?? '',
      ownerEmail: form.ownerEmail ?? '',
    })
    if ('refused' in created) {
      const found = await searchMerchants(context, { q: '' })
      return sendPage(reply, 422, merchantsPage(signedIn.page, { q: '', status: '' }, found, created))
    }
    return sendPage(reply, 200, createdPage(signedIn.page, created))
  })
  consoleMerchantRoutes(app, context, guard)
  consoleMerchantMembersRoutes(app, context, guard)
  consoleMerchantStatementRoutes(app, context, guard)
}

function merchantsPage(
  page: ConsolePage,
  filter: Filter,
  found: MerchantPage,
  refusal?: NewMerchantRefusal,
): string {
  const words = merchantWordsOf(page.locale)
  const columns: Column<MerchantEntry>[] = [
    {
      header: words.name,
      rowHeader: true,
      cell: (merchant) => (
        <a href={`/console/merchants/${encodeURIComponent(merchant.id)}`}>{merchant.name}</a>
      ),
    },
    { header: words.id, cell: (merchant) => <code>{merchant.id}</code> },
    { header: words.status, cell: (merchant) => <MerchantStatusText words={words} merchant={merchant} /> },
    { header: words.created, cell: (merchant) => showInstant(page, merchant.createdAtUs) },
  ]
  const base = `/console/merchants?${new URLSearchParams({ q: filter.q, status: filter.status })}`
  const next =
    found.next && `${base}&${new URLSearchParams({ afterName: found.next.name, afterId: found.next.id })}`
  return consolePage(
    page,
    words.title,
    <>
      <Notification error={refusal && words.createRefusals[refusal.refused]} />
      <form method="get" action="/console/merchants" class="filters">
        <label>
          {words.search}
          <input type="search" name="q" value={filter.q} />
        </label>
        <label>
          {words.status}
          <select name="status">
            <option value="">{words.anyStatus}</option>
            {statusFilters.map((status) => (
              <option key={status} value={status} selected={filter.status === status}>
                {words.statuses[status]}
              </option>
            ))}
          </select>
        </label>
        <button type="submit">{words.searchSubmit}</button>
      </form>
      <Table
        page={page}
        caption={words.caption}
        columns={columns}
        rows={found.merchants}
        rowKey={(merchant) => merchant.id}
        empty={words.none}
      />
      <Pagination page={page} label={words.pages} first={filter.afterId ? base : undefined} next={next} />
      {consoleAllows(page, 'onboard') && <NewMerchantForm page={page} />}
    </>,
  )
}

function NewMerchantForm({ page }: { page: ConsolePage }) {
  const words = merchantWordsOf(page.locale)
  return (
    <Section id="create" title={words.create}>
      <form method="post" action="/console/merchants" class="stack">
        <CsrfInput page={page} />
        <p id="create-intro">{words.createIntro}</p>
        <label>
          {words.name}
          <input name="name" maxLength={100} required />
        </label>
        <label>
          {words.ownerEmail}
          <input name="ownerEmail" type="email" autoComplete="off" required />
        </label>
        <button type="submit" aria-describedby="create-intro">
          {words.createSubmit}
        </button>
      </form>
    </Section>
  )
}

/** The invitation URL, shown this once: it is the only copy of its token. */
function createdPage(page: ConsolePage, created: NewMerchant): string {
  const words = merchantWordsOf(page.locale)
  return consolePage(
    page,
    words.createdTitle(created.name),
    <>
      <Notification notice={words.createdNotice(created.ownerEmail)} />
      <p>{words.invitationOnce(showInstant(page, created.expiresAtUs))}</p>
      <p>
        <code data-invitation-url>{created.invitationUrl}</code>
      </p>
      <p>
        <a href={`/console/merchants/${encodeURIComponent(created.merchantId)}`}>{words.openMerchant}</a>
      </p>
    </>,
  )
}

/** Its status, and that its payouts are paused when they are. */
export function MerchantStatusText({ words, merchant }: { words: MerchantWords; merchant: MerchantEntry }) {
  const status = words.statuses[merchant.status]
  return <>{merchant.payoutsPausedAtUs === null ? status : `${status}, ${words.statuses.payouts_paused}`}</>
}
