/** A customer on a payment link's page, over plain HTTP: the form's CSRF token and cookie, then its POST. */

export interface PageAnswer {
  status: number
  headers: Headers
  text: string
}

function cookieOf(response: Response): string {
  return (response.headers.getSetCookie?.() ?? [])
    .map((line) => line.split(';')[0])
    .filter((pair): pair is string => Boolean(pair))
    .join('; ')
}

type LinkFields = { channel: string; phoneNumber: string; amount?: string; fullName?: string }

/** GETs the page and keeps its form: `submit` POSTs it later with these fields, the answer not followed. */
export async function openLinkForm(baseUrl: string, token: string) {
  const page = await fetch(`${baseUrl}/pay/${token}`)
  const html = await page.text()
  const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? ''
  const cookie = cookieOf(page)
  return {
    html,
    submit: async (fields: LinkFields): Promise<PageAnswer> => {
      const response = await fetch(`${baseUrl}/pay/${token}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
        body: new URLSearchParams({ csrf, ...fields }).toString(),
        redirect: 'manual',
      })
      return { status: response.status, headers: response.headers, text: await response.text() }
    },
  }
}

/** GETs the page and POSTs its form with these fields, as a browser would; the answer is not followed. */
export async function payOnLinkPage(baseUrl: string, token: string, fields: LinkFields): Promise<PageAnswer> {
  return (await openLinkForm(baseUrl, token)).submit(fields)
}

/** The sandbox checkout page's decision (pay or decline) on the payment at `checkoutPath`. */
export async function decideOnCheckout(baseUrl: string, checkoutPath: string, decision: 'pay' | 'decline') {
  const page = await fetch(`${baseUrl}${checkoutPath}`)
  const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? ''
  return fetch(`${baseUrl}${checkoutPath}/${decision}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookieOf(page) },
    body: new URLSearchParams({ csrf }).toString(),
    redirect: 'manual',
  })
}
