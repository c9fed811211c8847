import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import QRCode from 'qrcode'
import type { ChannelView } from '../../../app/catalogue.ts'
import type { AppContext } from '../../../app/context.ts'
import {
  channelOutsideCountry,
  closeLinkFromDashboard,
  createLinkFromDashboard,
  type LinkForm,
  linkChannels,
  linkCountryOf,
  linkInputOf,
  linksOf,
  linkViewOf,
} from '../../../app/dashboard/payment-link-actions.ts'
import { linkUrls } from '../../../app/payment-links/index.ts'
import type { Mode } from '../../../domain/kinds.ts'
import { pageNumberOf } from '../../pages/kit/index.ts'
import { countryName } from '../format.ts'
import type { Guard, SignedIn } from '../guard.tsx'
import { redirect, sendPage } from '../respond.ts'
import { modes } from './home.tsx'
import { linkPage } from './payment-link-page.tsx'
import { linksPage } from './payment-links-page.tsx'
import { batchMemberOf, principalOf } from './payout-batches.tsx'

const tokenPattern = /^[a-z0-9_-]{4,64}$/i

function notFound(): Error {
  return Object.assign(new Error('No such payment link'), { statusCode: 404 })
}

/**
 * The payment link pages of each place: the list and the create form (permission 'read' to see,
 * 'links' to create or close), a link's page with its QR code and its payments.
 */
export function paymentLinkRoutes(app: FastifyInstance, context: AppContext, guard: Guard): void {
  for (const mode of modes) {
    const base = `/dashboard/${mode}/payment-links`
    app.get(base, async (request, reply) => {
      const signedIn = await guard.member(request, reply, 'read', mode)
      if (!signedIn) return reply
      const { page, country } = request.query as { page?: string; country?: string }
      return showLinks(context, signedIn, reply, { mode, page: pageNumberOf(page), status: 200, country })
    })
    app.post(base, async (request, reply) => {
      const signedIn = await guard.member(request, reply, 'links', mode)
      if (!signedIn) return reply
      return createAnswer(context, request, reply, signedIn, mode)
    })
    app.get(`${base}/:token`, async (request, reply) => {
      const signedIn = await guard.member(request, reply, 'read', mode)
      if (!signedIn) return reply
      const { token } = request.params as { token: string }
      const { done } = request.query as { done?: string }
      const { t } = signedIn.page
      const notice =
        done === 'created' ? t.paymentLinks.created : done === 'closed' ? t.paymentLinks.closed : undefined
      return showLink(context, signedIn, reply, { mode, token, status: 200, note: { notice } })
    })
    app.post(`${base}/:token/close`, async (request, reply) => {
      const signedIn = await guard.member(request, reply, 'links', mode)
      if (!signedIn) return reply
      const { token } = request.params as { token: string }
      if (!tokenPattern.test(token)) throw notFound()
      const member = batchMemberOf(signedIn, request)
      const outcome = await closeLinkFromDashboard(context, member, principalOf(signedIn, mode), token)
      if ('link' in outcome) return redirect(reply, `${base}/${token}?done=closed`)
      const error = `${signedIn.page.t.operations.refused} ${outcome.apiError.message}`
      return showLink(context, signedIn, reply, {
        mode,
        token,
        status: outcome.apiError.status,
        note: { error },
      })
    })
  }
}

async function createAnswer(
  context: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  signedIn: SignedIn,
  mode: Mode,
): Promise<FastifyReply> {
  const form = (request.body ?? {}) as LinkForm
  const { t } = signedIn.page
  const input = linkInputOf(form, context.clock.nowUs())
  const shown = { mode, page: 1, status: 422, form }
  if (input === 'amount_invalid' || input === 'description_invalid') {
    const error =
      input === 'amount_invalid' ? t.paymentLinks.amountInvalid : t.paymentLinks.descriptionInvalid
    return showLinks(context, signedIn, reply, { ...shown, error })
  }
  const principal = principalOf(signedIn, mode)
  const channels = await linkChannels(context, principal)
  const outside = channelOutsideCountry(input, channels)
  if (outside)
    return showLinks(context, signedIn, reply, {
      ...shown,
      error: outsideText(signedIn, input.country, outside, channels),
    })
  const outcome = await createLinkFromDashboard(context, batchMemberOf(signedIn, request), principal, input)
  if ('link' in outcome)
    return redirect(reply, `/dashboard/${mode}/payment-links/${outcome.link.link.token}?done=created`)
  const error = `${t.operations.refused} ${outcome.apiError.message}`
  return showLinks(context, signedIn, reply, { ...shown, status: outcome.apiError.status, error })
}

/** A channel ticked that the link's country does not offer, named, with those it does. */
function outsideText(
  signedIn: SignedIn,
  country: string,
  outside: { channel: string; offered: ChannelView[] },
  channels: ChannelView[],
): string {
  const { t, locale } = signedIn.page
  const name = (code: string) => channels.find((row) => row.channel === code)?.name ?? code
  const offered = outside.offered.map((row) => row.name).join(', ')
  return t.paymentLinks.channelNotInCountry(name(outside.channel), countryName(country, locale), offered)
}

async function showLinks(
  context: AppContext,
  signedIn: SignedIn,
  reply: FastifyReply,
  shown: { mode: Mode; page: number; status: number; error?: string; form?: LinkForm; country?: string },
): Promise<FastifyReply> {
  const principal = principalOf(signedIn, shown.mode)
  const [list, channels] = await Promise.all([
    linksOf(context, principal, shown.page),
    linkChannels(context, principal),
  ])
  const view = {
    list,
    channels,
    country: linkCountryOf(channels, shown.form?.country ?? shown.country, list.items[0]?.link.country),
    nowUs: context.clock.nowUs(),
    error: shown.error,
    form: shown.form ?? {},
    current: shown.page,
  }
  return sendPage(reply, shown.status, linksPage(signedIn.page, view))
}

async function showLink(
  context: AppContext,
  signedIn: SignedIn,
  reply: FastifyReply,
  shown: { mode: Mode; token: string; status: number; note: { notice?: string; error?: string } },
): Promise<FastifyReply> {
  if (!tokenPattern.test(shown.token)) throw notFound()
  const view = await linkViewOf(context, principalOf(signedIn, shown.mode), shown.token)
  if (!view) throw notFound()
  const { url } = linkUrls(context, view.link.link.token)
  // A data: image: the dashboard's CSP takes images from itself and data: only.
  const svg = await QRCode.toString(url, { type: 'svg', margin: 2, errorCorrectionLevel: 'M' })
  const qr = `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`
  const page = linkPage(signedIn.page, { ...view, url, qr, nowUs: context.clock.nowUs() }, shown.note)
  return sendPage(reply, shown.status, page)
}
