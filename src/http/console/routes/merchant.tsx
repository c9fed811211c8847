import type { FastifyInstance, FastifyReply } from 'fastify'
import {
  type ConsoleActor,
  changeMerchantStatus,
  type MerchantActionOutcome,
  type MerchantFile,
  merchantFileOf,
  pauseMerchantPayouts,
  resumeMerchantPayouts,
  setMerchantFee,
  setMerchantLimits,
} from '../../../app/console/merchant-actions.ts'
import type { AppContext } from '../../../app/context.ts'
import { modes } from '../../../domain/kinds.ts'
import type { PlatformPermission } from '../../../domain/platform-roles.ts'
import { plainPage } from '../../dashboard/layout.tsx'
import { OperationsTable } from '../../dashboard/operations-table.tsx'
import { sendPage } from '../../dashboard/respond.ts'
import { Notification, Section, SummaryList, showInstant } from '../../pages/kit/index.ts'
import { type ConsoleGuard, consoleActorOf } from '../guard.ts'
import { type ConsolePage, consolePage } from '../layout.tsx'
import { merchantWordsOf } from '../messages/merchants.ts'
import {
  MerchantActions,
  MerchantAudit,
  MerchantBalances,
  MerchantFees,
  MerchantLimits,
  MerchantMembers,
  MerchantStatement,
} from './merchant-parts.tsx'
import { MerchantStatusText } from './merchants.tsx'

type Form = Record<string, string | undefined>
type Done = keyof ReturnType<typeof merchantWordsOf>['done']
/** What the page says after an action: what was done, or why it was refused. */
type Outcome = { done?: Done; outcome?: MerchantActionOutcome; notice?: string; status?: number }

/**
 * A merchant's page: every role reads it; risk pauses and resumes payouts, sets limits, suspends and
 * activates; finance sets its fees; support helps its members (merchant-members.tsx).
 */
export function consoleMerchantRoutes(app: FastifyInstance, context: AppContext, guard: ConsoleGuard): void {
  app.get('/console/merchants/:id', async (request, reply) => {
    const signedIn = await guard.member(request, reply, 'read')
    if (!signedIn) return reply
    return sendMerchantPage(context, reply, signedIn.page, (request.params as { id: string }).id, {})
  })

  /** A change of a role's: the guard refuses any other role (and a forged form) before anything changes. */
  const action = (
    name: Done,
    permission: PlatformPermission,
    work: (actor: ConsoleActor, merchantId: string, form: Form) => Promise<MerchantActionOutcome>,
  ) =>
    app.post(`/console/merchants/:id/${name}`, async (request, reply) => {
      const signedIn = await guard.member(request, reply, permission)
      if (!signedIn) return reply
      const merchantId = (request.params as { id: string }).id
      const outcome = await work(consoleActorOf(signedIn, request), merchantId, (request.body ?? {}) as Form)
      return sendMerchantPage(context, reply, signedIn.page, merchantId, { done: name, outcome })
    })

  action('pause', 'payouts', (actor, id, form) => pauseMerchantPayouts(context, actor, id, form.reason ?? ''))
  action('resume', 'payouts', (actor, id) => resumeMerchantPayouts(context, actor, id))
  action('limits', 'limits', (actor, id, form) =>
    setMerchantLimits(context, actor, id, {
      mode: form.mode ?? '',
      currency: form.currency ?? '',
      maxAmount: form.maxAmount ?? '',
      dailyPayoutLimit: form.dailyPayoutLimit ?? '',
    }),
  )
  action('fees', 'fees', (actor, id, form) =>
    setMerchantFee(context, actor, id, {
      kind: form.kind ?? '',
      channel: form.channel ?? '',
      country: form.country ?? '',
      percentage: form.percentage ?? '',
      fixed: form.fixed ?? '',
      bearer: form.bearer ?? '',
    }),
  )
  action('suspend', 'merchants', (actor, id) => changeMerchantStatus(context, actor, id, 'suspended'))
  action('activate', 'merchants', (actor, id) => changeMerchantStatus(context, actor, id, 'active'))
}

export async function sendMerchantPage(
  context: AppContext,
  reply: FastifyReply,
  page: ConsolePage,
  merchantId: string,
  outcome: Outcome,
): Promise<FastifyReply> {
  const file = await merchantFileOf(context, merchantId)
  if (!file)
    return sendPage(
      reply,
      404,
      plainPage(page, page.t.errors.notFoundTitle, <p class="error">{page.t.errors.notFound}</p>),
    )
  const path = `/console/merchants/${encodeURIComponent(merchantId)}`
  const refused = outcome.outcome && 'refused' in outcome.outcome
  return sendPage(
    reply,
    outcome.status ?? (refused ? 422 : 200),
    merchantPage({ ...page, path }, file, outcome),
  )
}

function merchantPage(page: ConsolePage, file: MerchantFile, outcome: Outcome): string {
  const words = merchantWordsOf(page.locale)
  const { merchant } = file
  const result = outcome.outcome
  return consolePage(
    page,
    merchant.name,
    <>
      <Notification
        notice={
          outcome.notice ??
          (result && 'done' in result && outcome.done ? words.done[outcome.done] : undefined)
        }
        error={result && 'refused' in result ? words.refusals[result.refused] : undefined}
      />
      <SummaryList
        rows={[
          [words.id, <code key="id">{merchant.id}</code>],
          [words.status, <MerchantStatusText key="status" words={words} merchant={merchant} />],
          file.payoutsPaused && [
            words.statuses.payouts_paused,
            words.payoutsPausedSince(
              showInstant(page, file.payoutsPaused.atUs),
              file.payoutsPaused.reason ?? '',
            ),
          ],
          [words.created, showInstant(page, merchant.createdAtUs)],
        ]}
      />
      <MerchantActions page={page} file={file} />
      <MerchantLimits page={page} file={file} />
      <MerchantFees page={page} file={file} />
      <MerchantBalances page={page} file={file} />
      <MerchantStatement page={page} file={file} />
      {modes.map((mode) => (
        <Section key={mode} id={`latest-${mode}`} title={words.latest(words.modes[mode])}>
          <OperationsTable
            page={page}
            operations={file.latestOperations[mode]}
            hrefOf={(operation) => `/console/operations/${operation.token}`}
          />
        </Section>
      ))}
      <MerchantMembers page={page} file={file} />
      <MerchantAudit page={page} file={file} />
    </>,
  )
}
