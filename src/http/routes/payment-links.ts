import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../../app/context.ts'
import {
  closePaymentLink,
  createPaymentLink,
  listPaymentLinks,
  type PaymentLinkInput,
  paymentLinkDetails,
  paymentLinkRecord,
} from '../../app/payment-links/index.ts'
import { errorResponse } from '../openapi.ts'
import { paginationMeta } from '../pagination.ts'
import {
  PaymentLinkBody,
  PaymentLinkCloseBody,
  PaymentLinkListQuery,
  PaymentLinkParams,
  PaymentLinkRecord,
} from '../payment-link-schemas.ts'
import { dateRange } from '../query.ts'
import { envelope, listEnvelope } from '../schemas.ts'
import { envelopeOf } from './operations.ts'

const tags = ['payment link']

const exampleRequest = {
  merchantReference: 'robe-wax-m',
  description: 'Robe wax, taille M',
  country: 'CI',
  amount: 15000,
  succeededUrl: 'https://boutique.example/merci',
}

const exampleRecord = {
  token: 'k3n8q-2hx7d-p9c4m-w6t1z-b5r0v',
  url: 'https://sika.example/pay/k3n8q-2hx7d-p9c4m-w6t1z-b5r0v',
  qrCodeUrl: 'https://sika.example/pay/k3n8q-2hx7d-p9c4m-w6t1z-b5r0v/qr.svg',
  status: 'active',
  description: 'Robe wax, taille M',
  amount: 15000,
  currency: 'XOF',
  country: 'CI',
  channels: ['mtn-momo', 'orange-money', 'wave'],
  reusable: false,
  expiresAt: '2026-11-28T10:00:00.000000Z',
  paymentCount: 0,
  collectedAmount: 0,
  merchantReference: 'robe-wax-m',
  initiationDate: '2026-11-21T10:00:00.000000Z',
  succeededUrl: 'https://boutique.example/merci',
}
const created = 'Payment link !'

/** CONTRACT.md, Payment links: create, list, read and close the links customers pay on Sika's page. */
export function paymentLinkRoutes(app: FastifyInstance, context: AppContext): void {
  app.post(
    '/payment-link',
    {
      schema: {
        tags,
        operationId: 'createPaymentLink',
        summary: 'Create a payment link',
        description:
          'A page Sika hosts at url (and a QR code of it at qrCodeUrl) where a customer chooses a channel, types a phone number (and the amount, for an amountRange) and pays: each payment is an ordinary collect of this mode, with the link’s callbackUrl and metadata, its record naming the link in paymentLink. A single-use link (reusable false, the default) takes one succeeded payment, and refuses another while one is pending. The same merchantReference with the same body returns the existing link; with another body it is a 409.',
        body: { ...PaymentLinkBody, examples: [exampleRequest] },
        response: {
          200: {
            ...envelope('paymentLink', PaymentLinkRecord),
            examples: [envelopeOf(created, 'paymentLink', exampleRecord)],
          },
        },
      },
    },
    async (request) => {
      const link = await createPaymentLink(context, request.principal, request.body as PaymentLinkInput)
      return envelopeOf(created, 'paymentLink', paymentLinkRecord(context, link))
    },
  )
  app.get(
    '/payment-link',
    {
      schema: {
        tags,
        operationId: 'listPaymentLinks',
        summary: 'List payment links',
        description:
          'Newest first, `perPage` 1 to 100 (default 10), each with its status, paymentCount and collectedAmount, with filters: status (the status each link has now), merchantReference, from and to (on initiationDate). Page URLs in meta.pagination keep perPage and the filters. A link’s payments: GET /api/v1/collect?paymentLink={token}.',
        querystring: PaymentLinkListQuery,
        response: { 200: listEnvelope('paymentLinks', PaymentLinkRecord) },
      },
    },
    async (request) => {
      const query = request.query as PaymentLinkListQuery
      const page = query.page ?? 1
      const perPage = query.perPage ?? 10
      const { page: _page, perPage: _perPage, from, to, ...filters } = query
      const { items, total } = await listPaymentLinks(
        context,
        request.principal,
        { page, perPage },
        { ...filters, ...dateRange(from, to) },
      )
      return {
        ...envelopeOf(
          'Payment links !',
          'paymentLinks',
          items.map((link) => paymentLinkRecord(context, link)),
        ),
        meta: {
          pagination: paginationMeta(
            context.config.publicBaseUrl,
            '/api/v1/payment-link',
            query,
            page,
            perPage,
            total,
          ),
        },
      }
    },
  )
  linkRoutes(app, context)
}

/** One link: read it, close it. */
function linkRoutes(app: FastifyInstance, context: AppContext): void {
  app.get(
    '/payment-link/:token',
    {
      schema: {
        tags,
        operationId: 'getPaymentLink',
        summary: 'Read a payment link by its token',
        description: 'Another merchant’s token, the other mode’s, or an unknown one: the same 404.',
        params: PaymentLinkParams,
        response: { 200: envelope('paymentLink', PaymentLinkRecord) },
      },
    },
    async (request) => {
      const { token } = request.params as { token: string }
      return envelopeOf(
        created,
        'paymentLink',
        paymentLinkRecord(context, await paymentLinkDetails(context, request.principal, token)),
      )
    },
  )
  closeRoute(app, context)
}

/** Close: its body is optional, so an empty one reads as `{}` (hostile-input.ts's parser, `emptyBodyAsObject`). */
function closeRoute(app: FastifyInstance, context: AppContext): void {
  app.post(
    '/payment-link/:token/close',
    {
      schema: {
        tags,
        operationId: 'closePaymentLink',
        summary: 'Close a payment link',
        description:
          'Its page takes no more payments (a payment already pending goes on to its end). Closing a closed link answers it again; a link already expired or completed is a 422 link_unavailable. No body, an empty one (even sent as application/json), or {}; a field in it is a 422 unknown_field.',
        params: PaymentLinkParams,
        body: PaymentLinkCloseBody,
        response: {
          200: envelope('paymentLink', PaymentLinkRecord),
          422: errorResponse(['validation_failed', 'link_unavailable']),
        },
      },
      // No body at all (no content-type) arrives undefined: it is the empty object too.
      preValidation: (request, _reply, done) => {
        request.body ??= {}
        done()
      },
      config: { emptyBodyAsObject: true },
    },
    async (request) => {
      const { token } = request.params as { token: string }
      return envelopeOf(
        created,
        'paymentLink',
        paymentLinkRecord(context, await closePaymentLink(context, request.principal, token)),
      )
    },
  )
}
