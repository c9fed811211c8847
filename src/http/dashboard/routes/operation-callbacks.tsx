import type { CallbackView, OperationView } from '../../../app/dashboard/operation-view.ts'
import { CsrfInput, showInstant } from '../../pages/kit/index.ts'
import type { PageContext } from '../layout.tsx'

/**
 * Each callback sent for the operation, with every delivery attempt, and resending one where
 * `resendAction` gives the form's address (the dashboard's, for a role that may).
 */
export function CallbacksSection({
  page,
  view,
  resendAction,
}: {
  page: PageContext<string>
  view: OperationView
  resendAction?: ((eventId: string) => string) | undefined
}) {
  const { t } = page
  return (
    <section aria-labelledby="callbacks">
      <h2 id="callbacks">{t.operations.callbacks}</h2>
      {view.callbacks.length === 0 ? (
        <p class="muted">{t.operations.noCallbacks}</p>
      ) : (
        view.callbacks.map((callback) => (
          <CallbackBlock
            key={callback.event.id}
            page={page}
            callback={callback}
            resendAction={resendAction}
          />
        ))
      )}
    </section>
  )
}

function CallbackBlock({
  page,
  callback,
  resendAction,
}: {
  page: PageContext<string>
  callback: CallbackView
  resendAction: ((eventId: string) => string) | undefined
}) {
  const { t } = page
  const { event, attempts } = callback
  const headingId = `event-${event.id}`
  return (
    <article class="callback" aria-labelledby={headingId}>
      <h3 id={headingId}>
        {event.type} · {t.operations.delivery}: {deliveryWords(page, event.deliveryStatus)}
      </h3>
      <p class="muted">
        {showInstant(page, event.createdAtUs)} ·{' '}
        {event.callbackUrl ? t.operations.callbackTo(event.callbackUrl) : t.operations.noCallbackUrl}
      </p>
      {attempts.length === 0 ? (
        <p class="muted">{t.operations.noAttempts}</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">{t.operations.attempt}</th>
              <th scope="col">{t.common.when}</th>
              <th scope="col">{t.operations.answer}</th>
              <th scope="col" class="num">
                {t.operations.duration}
              </th>
              <th scope="col">{t.operations.error}</th>
            </tr>
          </thead>
          <tbody>
            {attempts.map((attempt) => (
              <tr key={String(attempt.number)}>
                <th scope="row">{attempt.number}</th>
                <td>{showInstant(page, attempt.startedAtUs)}</td>
                <td>
                  {attempt.statusCode === null
                    ? deliveryWords(page, attempt.outcome)
                    : `${attempt.statusCode} (${deliveryWords(page, attempt.outcome)})`}
                </td>
                <td class="num">{t.operations.milliseconds(attempt.durationMs)}</td>
                <td>{attempt.error ?? ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {resendAction && event.callbackUrl && (
        <form method="post" action={resendAction(event.id)}>
          <CsrfInput page={page} />
          <button type="submit" name="resend" value={event.id}>
            {t.operations.resend}
          </button>
        </form>
      )}
    </article>
  )
}

/** A delivery's status or an attempt's outcome in the member's words. */
function deliveryWords(page: PageContext<string>, status: string): string {
  const words: Record<string, string> = {
    ...page.t.developers.deliveryStatuses,
    retry: page.t.operations.retrying,
  }
  return words[status] ?? status
}
