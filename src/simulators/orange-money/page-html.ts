import type { WebPayment } from './payments.ts'

/** The page speaks the payment's `lang`: English for "en", French otherwise (Orange's default). */
const texts = {
  fr: {
    title: 'Paiement Orange Money',
    merchant: 'Marchand',
    order: 'Commande',
    amount: 'Montant',
    msisdn: 'Numéro Orange Money',
    otp: 'Code OTP (reçu par USSD)',
    confirm: 'Confirmer',
    cancel: 'Annuler',
    back: 'Retour au site marchand',
    notFound: 'Ce paiement est inconnu.',
    expired: 'Ce paiement a expiré.',
    processed: 'Ce paiement a déjà été traité.',
    invalidNumber: 'Saisissez un numéro Orange Money valide.',
    failure: 'Une erreur est survenue, veuillez réessayer plus tard.',
  },
  en: {
    title: 'Orange Money payment',
    merchant: 'Merchant',
    order: 'Order',
    amount: 'Amount',
    msisdn: 'Orange Money number',
    otp: 'OTP code (received by USSD)',
    confirm: 'Confirm',
    cancel: 'Cancel',
    back: 'Back to the merchant site',
    notFound: 'This payment is unknown.',
    expired: 'This payment has expired.',
    processed: 'This payment has already been processed.',
    invalidNumber: 'Enter a valid Orange Money number.',
    failure: 'An error occurred, please try again later.',
  },
} as const

export type PageTexts = (typeof texts)[keyof typeof texts]

export function textsFor(payment: WebPayment | undefined): PageTexts {
  return payment?.request.lang === 'en' ? texts.en : texts.fr
}

/** Every value the merchant sent is shown escaped: the page must not run what a body carried. */
export function escapeHtml(value: string): string {
  return value
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;')
}

function page(title: string, content: string, lang: string): string {
  return `<!doctype html>
<html lang="${lang}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>body{font-family:sans-serif;max-width:28rem;margin:2rem auto;padding:0 1rem}
h1{color:#ff7900}label,input,button{display:block;width:100%;margin:.4rem 0}
input,button{padding:.6rem;box-sizing:border-box}button{background:#ff7900;color:#fff;border:0}
button.secondary{background:#555}.error{color:#b00020}</style>
</head>
<body>
<h1>${escapeHtml(title)}</h1>
${content}
</body>
</html>
`
}

/** The form a customer pays on: their number (the OTP is asked, as on Orange's page, but not checked). */
export function paymentForm(payment: WebPayment, error?: string): string {
  const t = textsFor(payment)
  const base = `/payment/pay_token/${payment.payToken}`
  const { reference, orderId, amount, currency } = payment.request
  const content = `<dl>
<dt>${t.merchant}</dt><dd>${escapeHtml(reference ?? '')}</dd>
<dt>${t.order}</dt><dd>${escapeHtml(orderId)}</dd>
<dt>${t.amount}</dt><dd>${amount} ${escapeHtml(currency)}</dd>
</dl>
${error === undefined ? '' : `<p class="error">${escapeHtml(error)}</p>`}
<form method="post" action="${base}/pay">
<label for="msisdn">${t.msisdn}</label>
<input id="msisdn" name="msisdn" type="tel" inputmode="numeric" autocomplete="tel" required>
<label for="otp">${t.otp}</label>
<input id="otp" name="otp" type="text" inputmode="numeric" autocomplete="one-time-code">
<button type="submit">${t.confirm}</button>
</form>
<form method="post" action="${base}/cancel">
<button type="submit" class="secondary">${t.cancel}</button>
</form>`
  return page(t.title, content, payment.request.lang === 'en' ? 'en' : 'fr')
}

/** A page that only tells something, with a way back to the merchant when there is one. */
export function noticePage(payment: WebPayment | undefined, message: string, backUrl?: string): string {
  const t = textsFor(payment)
  const back = backUrl === undefined ? '' : `<p><a href="${escapeHtml(backUrl)}">${t.back}</a></p>`
  return page(t.title, `<p>${escapeHtml(message)}</p>\n${back}`, payment?.request.lang === 'en' ? 'en' : 'fr')
}
