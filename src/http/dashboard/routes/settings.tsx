import type { FastifyInstance, FastifyReply } from 'fastify'
import type { AppContext } from '../../../app/context.ts'
import { type MerchantSettings, merchantSettingsOf } from '../../../app/dashboard/settings.ts'
import { setRequireBatchApproval } from '../../../app/payout-batches/settings.ts'
import type { Guard, SignedIn } from '../guard.tsx'
import { CsrfField, memberPage, type PageContext } from '../layout.tsx'
import { sendPage } from '../respond.ts'
import { memberActor } from './developers.tsx'

/** The merchant's settings (permission 'settings': owners): whether API payout batches wait for approval. */
export function settingsRoutes(app: FastifyInstance, context: AppContext, guard: Guard): void {
  const show = async (reply: FastifyReply, signedIn: SignedIn, notice?: string) => {
    const settings = await merchantSettingsOf(context, signedIn.live.member.merchantId)
    return sendPage(reply, 200, settingsPage(signedIn.page, settings, notice))
  }
  app.get('/dashboard/settings', async (request, reply) => {
    const signedIn = await guard.member(request, reply, 'settings')
    return signedIn ? show(reply, signedIn) : reply
  })
  app.post('/dashboard/settings', async (request, reply) => {
    const signedIn = await guard.member(request, reply, 'settings')
    if (!signedIn) return reply
    const form = (request.body ?? {}) as Record<string, string | undefined>
    const merchantId = signedIn.live.member.merchantId
    const required = form.requireBatchApproval === 'on'
    await setRequireBatchApproval(context, merchantId, required, memberActor(request, signedIn))
    return show(reply, signedIn, signedIn.page.t.settings.saved)
  })
}

function settingsPage(page: PageContext, settings: MerchantSettings, notice: string | undefined): string {
  const { t } = page
  return memberPage(
    page,
    t.settings.title,
    <>
      {notice && (
        <p class="notice" role="status">
          {notice}
        </p>
      )}
      <section aria-labelledby="batch-approval">
        <h2 id="batch-approval">{t.settings.batchApproval}</h2>
        <p id="batch-approval-intro">{t.settings.batchApprovalIntro}</p>
        <form method="post" action="/dashboard/settings" class="inline">
          <CsrfField page={page} />
          <label class="check">
            <input
              type="checkbox"
              name="requireBatchApproval"
              checked={settings.requireBatchApproval}
              aria-describedby="batch-approval-intro"
            />
            {t.settings.requireBatchApproval}
          </label>
          <button type="submit">{t.common.save}</button>
        </form>
      </section>
    </>,
  )
}
