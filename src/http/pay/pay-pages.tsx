import type { ComponentChildren } from 'preact'
import { render } from 'preact-render-to-string'
import { type Currency, currencies, toMajorUnits } from '../../domain/money.ts'
import type { PayLocale, PayMessages } from './messages.ts'

/** What every payment page knows of its request: the language, and the path the language switch comes back to. */
export interface PayPageContext {
  locale: PayLocale
  t: PayMessages
  /** The path asked for, with its query. */
  path: string
  sandbox: boolean
}

/** An amount as the customer's language writes it, with its currency's code. */
export function moneyText(locale: PayLocale, minor: number, currency: Currency): string {
  const digits = currencies[currency].scale
  const number = new Intl.NumberFormat(locale === 'fr' ? 'fr-FR' : 'en-US', {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  }).format(toMajorUnits(minor, currency))
  return `${number} ${currency}`
}

/** The path with `lang` set to the other language (and never held: no `wait`): the switch is a plain link, no script. */
function switchHref(page: PayPageContext): string {
  const url = new URL(page.path, 'http://page.invalid')
  url.searchParams.delete('wait')
  url.searchParams.set('lang', page.t.otherLocale)
  return `${url.pathname}${url.search}`
}

/** A whole document: one stylesheet served by Sika, no script; `refresh` reloads or leaves by itself. */
export function payDocument(
  page: PayPageContext,
  title: string,
  body: ComponentChildren,
  refresh?: { seconds: number; url?: string },
): string {
  const refreshContent =
    refresh && (refresh.url ? `${refresh.seconds}; url=${refresh.url}` : `${refresh.seconds}`)
  return `<!doctype html>${render(
    <html lang={page.locale}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        {refreshContent && <meta http-equiv="refresh" content={refreshContent} />}
        <title>{`${title} · ${page.t.product}`}</title>
        <link rel="stylesheet" href="/pay/assets/pay.css" />
      </head>
      <body>
        <header class="top">
          <span class="brand">{page.t.product}</span>
          <a href={switchHref(page)} hreflang={page.t.otherLocale} lang={page.t.otherLocale}>
            {page.t.otherLanguage}
            <span class="visually-hidden"> ({page.t.switchLanguage})</span>
          </a>
        </header>
        <main id="content">
          <div class="card">{body}</div>
          {page.sandbox && <p class="note">{page.t.sandbox}</p>}
        </main>
      </body>
    </html>,
  )}`
}

/** A page that only says something: not found, unavailable, a refused form. */
export function messagePage(
  page: PayPageContext,
  title: string,
  text: string,
  action?: ComponentChildren,
): string {
  return payDocument(
    page,
    title,
    <>
      <h1>{title}</h1>
      <p class="state">{text}</p>
      {action}
    </>,
  )
}

/**
 * While the customer approves on their phone (or the operator's page, `operatorUrl`, has yet to
 * confirm): the page asks for itself again at once (meta refresh 0: no delayed refresh, which
 * axe-core's meta-refresh rule and WCAG 2.2.1 refuse) with `wait=1`, which the server holds until
 * the payment changes or a few seconds pass (pay-routes.tsx, showOutcome). The customer can turn
 * that off, and check with a button instead.
 */
export function approvePage(
  page: PayPageContext,
  pending: { amount: string; merchantName: string; operatorUrl: string | undefined; refresh: boolean },
): string {
  const { t } = page
  const title = pending.operatorUrl ? t.waitingTitle : t.approveTitle
  const here = new URL(page.path, 'http://page.invalid')
  here.searchParams.delete('next')
  here.searchParams.delete('wait')
  here.searchParams.set('follow', pending.refresh ? 'off' : 'on')
  const toggle = `${here.pathname}${here.search}`
  here.searchParams.delete('follow')
  const again = `${here.pathname}${here.search}${pending.refresh ? '' : '&follow=off'}`
  here.searchParams.set('wait', '1')
  const held = `${here.pathname}${here.search}`
  return payDocument(
    page,
    title,
    <>
      <p class="merchant">{t.to(pending.merchantName)}</p>
      <h1>{title}</h1>
      <p class="state" role="status">
        {pending.operatorUrl ? t.waiting : t.approve(pending.amount)}
      </p>
      <p class="hint">{pending.refresh ? t.approveRefresh : t.approveStill}</p>
      <a class="button secondary" href={again}>
        {t.check}
      </a>
      <p class="hint">
        <a href={toggle}>{pending.refresh ? t.stopUpdating : t.startUpdating}</a>
      </p>
      {pending.operatorUrl && (
        <a class="button secondary" href={pending.operatorUrl}>
          {t.continueTitle}
        </a>
      )}
    </>,
    pending.refresh ? { seconds: 0, url: held } : undefined,
  )
}

/** The operator's (or the sandbox's) own payment page: left for at once, with a button when a browser waits. */
export function continuePage(page: PayPageContext, url: string): string {
  const { t } = page
  return payDocument(
    page,
    t.continueTitle,
    <>
      <h1>{t.continueTitle}</h1>
      <p class="state">{t.continueText}</p>
      <a class="button" href={url}>
        {t.continueButton}
      </a>
    </>,
    { seconds: 0, url },
  )
}

export function paidPage(
  page: PayPageContext,
  paid: { amount: string; merchantName: string; reference: string },
): string {
  const { t } = page
  return payDocument(
    page,
    t.paidTitle,
    <>
      <p class="merchant">{paid.merchantName}</p>
      <h1 class="paid">{t.paidTitle}</h1>
      <p class="state" role="status">
        {t.paid(paid.amount, paid.merchantName)}
      </p>
      <dl>
        <dt>{t.reference}</dt>
        <dd>{paid.reference}</dd>
      </dl>
    </>,
  )
}

export function failedPage(
  page: PayPageContext,
  failed: { reason: string | undefined; retryPath: string | undefined },
): string {
  const { t } = page
  return payDocument(
    page,
    t.failedTitle,
    <>
      <h1 class="failed">{t.failedTitle}</h1>
      <p class="state" role="status">
        {t.failed}
      </p>
      {failed.reason && (
        <dl>
          <dt>{t.reason}</dt>
          <dd>{failed.reason}</dd>
        </dl>
      )}
      {failed.retryPath && (
        <a class="button" href={failed.retryPath}>
          {t.retry}
        </a>
      )}
    </>,
  )
}
