import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { AppContext } from '../../../app/context.ts'
import type { Actor } from '../../../app/dashboard/audit.ts'
import {
  type ApiKeyView,
  type DevelopersView,
  developersView,
  type FailedEvent,
  issueKeyPair,
  issueWebhookSecret,
  revokeKeyOf,
  sendTestCallback,
  type TestCallbackResult,
} from '../../../app/dashboard/developers.ts'
import type { KeyPair } from '../../../app/merchants.ts'
import type { Mode } from '../../../domain/kinds.ts'
import { formatInstant } from '../format.ts'
import type { Guard, SignedIn } from '../guard.tsx'
import { CsrfField, memberPage, type PageContext } from '../layout.tsx'
import { sendPage } from '../respond.ts'

const modes: readonly Mode[] = ['sandbox', 'live']

/** What an action's answer page says above the page: a secret shown this once, or how an action went. */
type Notice =
  | { kind: 'pair'; pair: KeyPair }
  | { kind: 'secret'; secret: string }
  | { kind: 'revoked'; masked: string | undefined }
  | { kind: 'test'; result: TestCallbackResult }

export function memberActor(request: FastifyRequest, signedIn: SignedIn): Actor {
  const { member } = signedIn.live
  return { kind: 'member', memberId: member.id, email: member.email, address: request.ip }
}

/**
 * The developers page of each place (permission 'keys'): key pairs, the webhook secret, recent
 * callback failures and a test callback. A new secret is on the answer to the POST that made it
 * and nowhere else: the page reloaded shows none.
 */
export function developersRoutes(app: FastifyInstance, context: AppContext, guard: Guard): void {
  for (const mode of modes) {
    const base = `/dashboard/${mode}/developers`
    const answer = async (reply: FastifyReply, signedIn: SignedIn, notice?: Notice) => {
      const view = await developersView(context, signedIn.live.member.merchantId, mode)
      return sendPage(reply, 200, developersPage(signedIn.page, view, notice))
    }
    const action = (
      path: string,
      act: (request: FastifyRequest, signedIn: SignedIn) => Promise<Notice | undefined>,
    ) =>
      app.post(`${base}${path}`, async (request, reply) => {
        const signedIn = await guard.member(request, reply, 'keys', mode)
        if (!signedIn) return reply
        return answer(reply, signedIn, await act(request, signedIn))
      })
    app.get(base, async (request, reply) => {
      const signedIn = await guard.member(request, reply, 'keys', mode)
      if (!signedIn) return reply
      return answer(reply, signedIn)
    })
    const merchantOf = (signedIn: SignedIn) => signedIn.live.member.merchantId
    action('/keys', async (request, signedIn) => {
      const pair = await issueKeyPair(context, memberActor(request, signedIn), merchantOf(signedIn), mode)
      return pair && { kind: 'pair', pair }
    })
    action('/keys/revoke', async (request, signedIn) => {
      const keyId = String((request.body as Record<string, string>).key ?? '')
      const actor = memberActor(request, signedIn)
      return { kind: 'revoked', masked: await revokeKeyOf(context, actor, merchantOf(signedIn), mode, keyId) }
    })
    action('/webhook-secret', async (request, signedIn) => {
      const secret = await issueWebhookSecret(
        context,
        memberActor(request, signedIn),
        merchantOf(signedIn),
        mode,
      )
      return secret === undefined ? undefined : { kind: 'secret', secret }
    })
    action('/test-callback', async (request, signedIn) => {
      const url = String((request.body as Record<string, string>).url ?? '')
      const actor = memberActor(request, signedIn)
      return { kind: 'test', result: await sendTestCallback(context, actor, merchantOf(signedIn), mode, url) }
    })
  }
}

function developersPage(page: PageContext, view: DevelopersView, notice?: Notice): string {
  const { t } = page
  const base = `/dashboard/${page.mode}/developers`
  const hasActive = view.keys.some((key) => key.revokedAtUs === null)
  return memberPage(
    page,
    t.developers.title,
    <>
      {notice && <NoticeSection page={page} notice={notice} />}
      <section aria-labelledby="keys">
        <h2 id="keys">{t.developers.keys}</h2>
        <p>{t.developers.keysIntro}</p>
        <KeysTable page={page} keys={view.keys} />
        <form method="post" action={`${base}/keys`}>
          <CsrfField page={page} />
          <button type="submit" id="rotate-keys">
            {hasActive ? t.developers.rotatePair : t.developers.createPair}
          </button>
        </form>
      </section>
      <section aria-labelledby="webhook-secret">
        <h2 id="webhook-secret">{t.developers.webhookSecret}</h2>
        <p>{t.developers.webhookIntro}</p>
        <form method="post" action={`${base}/webhook-secret`}>
          <CsrfField page={page} />
          <button type="submit" id="rotate-webhook-secret">
            {t.developers.rotateSecret}
          </button>
        </form>
      </section>
      <section aria-labelledby="failures">
        <h2 id="failures">{t.developers.failures}</h2>
        <FailuresTable page={page} failures={view.failures} />
      </section>
      <section aria-labelledby="test-callback">
        <h2 id="test-callback">{t.developers.testTitle}</h2>
        <p>{t.developers.testIntro}</p>
        <form method="post" action={`${base}/test-callback`}>
          <CsrfField page={page} />
          <label for="test-url">{t.developers.testUrl}</label>
          <input id="test-url" name="url" type="url" required maxLength={2048} />
          <button type="submit">{t.developers.testSubmit}</button>
        </form>
      </section>
    </>,
  )
}

function NoticeSection({ page, notice }: { page: PageContext; notice: Notice }) {
  const { t } = page
  switch (notice.kind) {
    case 'pair':
      return (
        <section aria-labelledby="new-pair" class="notice" role="status">
          <h2 id="new-pair">{t.developers.newPairTitle}</h2>
          <p>{t.developers.newPairIntro}</p>
          <dl>
            <dt>{t.developers.apiKey}</dt>
            <dd>
              <code id="new-api-key">{notice.pair.apiKey}</code>
            </dd>
            <dt>{t.developers.secretKey}</dt>
            <dd>
              <code id="new-secret-key">{notice.pair.secretKey}</code>
            </dd>
          </dl>
        </section>
      )
    case 'secret':
      return (
        <section aria-labelledby="new-secret" class="notice" role="status">
          <h2 id="new-secret">{t.developers.newSecretTitle}</h2>
          <p>{t.developers.newSecretIntro}</p>
          <p>
            <code id="new-webhook-secret">{notice.secret}</code>
          </p>
        </section>
      )
    case 'revoked':
      return notice.masked ? (
        <p class="notice" role="status">
          {t.developers.revoked(notice.masked)}
        </p>
      ) : (
        <p class="error" role="alert">
          {t.developers.notRevoked}
        </p>
      )
    case 'test':
      return <TestResult page={page} result={notice.result} />
  }
}

function TestResult({ page, result }: { page: PageContext; result: TestCallbackResult }) {
  const { t } = page
  const text =
    'refused' in result
      ? result.refused === 'url_invalid'
        ? t.developers.urlInvalid
        : t.developers.urlForbidden(result.reason)
      : result.statusCode !== null
        ? t.developers.testAnswered(result.url, result.statusCode, result.durationMs)
        : t.developers.testFailed(result.url, result.error ?? '', result.durationMs)
  const failed = 'refused' in result || result.statusCode === null || result.statusCode >= 300
  return (
    <section aria-labelledby="test-result" class="notice">
      <h2 id="test-result">{t.developers.testResultTitle}</h2>
      <p id="test-result-text" class={failed ? 'error' : undefined} role={failed ? 'alert' : 'status'}>
        {text}
      </p>
    </section>
  )
}

function KeysTable({ page, keys }: { page: PageContext; keys: ApiKeyView[] }) {
  const { t } = page
  if (keys.length === 0) return <p class="muted">{t.developers.noKeys}</p>
  const when = (us: number) => formatInstant(us, page.locale, page.member?.timeZone ?? 'UTC')
  return (
    <>
      <p class="muted">{t.developers.notTracked}</p>
      <table id="api-keys">
        <thead>
          <tr>
            <th scope="col">{t.developers.apiKey}</th>
            <th scope="col">{t.developers.created}</th>
            <th scope="col">{t.developers.lastUsed}</th>
            <th scope="col">{t.developers.state}</th>
            <th scope="col">{t.common.actions}</th>
          </tr>
        </thead>
        <tbody>
          {keys.map((key) => (
            <tr key={key.id}>
              <th scope="row">
                <code>{key.masked}</code>
              </th>
              <td>{when(key.createdAtUs)}</td>
              <td>—</td>
              <td>
                {key.revokedAtUs === null
                  ? t.developers.active
                  : t.developers.revokedAt(when(key.revokedAtUs))}
              </td>
              <td>
                {key.revokedAtUs === null && (
                  <form method="post" action={`/dashboard/${page.mode}/developers/keys/revoke`}>
                    <CsrfField page={page} />
                    <input type="hidden" name="key" value={key.id} />
                    <button type="submit" aria-label={t.developers.revokeLabel(key.masked)}>
                      {t.developers.revoke}
                    </button>
                  </form>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  )
}

function FailuresTable({ page, failures }: { page: PageContext; failures: FailedEvent[] }) {
  const { t } = page
  if (failures.length === 0) return <p class="muted">{t.developers.noFailures}</p>
  const when = (us: number) => formatInstant(us, page.locale, page.member?.timeZone ?? 'UTC')
  return (
    <table id="callback-failures">
      <caption>{t.developers.failuresCaption}</caption>
      <thead>
        <tr>
          <th scope="col">{t.developers.event}</th>
          <th scope="col">{t.developers.operation}</th>
          <th scope="col">{t.common.when}</th>
          <th scope="col">{t.developers.delivery}</th>
          <th scope="col" class="num">
            {t.developers.attempts}
          </th>
          <th scope="col">{t.developers.lastAnswer}</th>
        </tr>
      </thead>
      <tbody>
        {failures.map(({ event, lastAttempt }) => (
          <tr key={event.id}>
            <th scope="row">
              <code>{event.id}</code> {event.type}
            </th>
            <td>
              <a href={`/dashboard/${page.mode}/operations/${encodeURIComponent(event.token)}`}>
                {event.token}
              </a>
            </td>
            <td>{when(lastAttempt?.startedAtUs ?? event.createdAtUs)}</td>
            <td>{t.developers.deliveryStatuses[event.deliveryStatus]}</td>
            <td class="num">{event.attempts}</td>
            <td>
              {lastAttempt?.statusCode ?? lastAttempt?.error ?? '—'}
              {lastAttempt && ` (${page.t.operations.milliseconds(lastAttempt.durationMs)})`}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}
