import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance, FastifySchema, RouteOptions } from 'fastify'
import { type TSchema, Type } from 'typebox'
import { type OperationKind, operationKindNames, operationKinds, paysOut } from '../domain/kinds.ts'
import { describeSandboxBehaviour, sandboxBehaviours } from '../domain/sandbox-outcomes.ts'
import { type ErrorCode, errorRegistry } from '../errors.ts'
import { PayoutBatchRecord } from './payout-batch-schemas.ts'
import { ErrorEnvelope, EventType, operationRecordOf } from './schemas.ts'

/** The document's tags: one per operation kind, then the other resources. */
const documentTags = [
  ...operationKindNames.map((kind) => ({ name: kind, description: operationKinds[kind].summary })),
  {
    name: 'transaction',
    description: 'Balance movements: holds, postings and releases; CSV statements.',
  },
  { name: 'balance', description: 'The balance, held and available amounts per currency.' },
  { name: 'channels', description: 'The channels, countries, limits and fees the merchant may use.' },
  {
    name: 'events',
    description: 'Callbacks: one event per status an operation takes, with its delivery attempts.',
  },
  {
    name: 'payment link',
    description:
      'A URL (and its QR code) where customers pay you on a page Sika hosts: no integration needed. Guide: docs/guide/payment-links.md.',
  },
  {
    name: 'payout-batch',
    description:
      'Pay up to 1,000 customers in one request: each payout a disbursement of its own; approval, cancel.',
  },
  { name: 'health', description: 'Liveness and readiness probes.' },
]

/**
 * The OpenAPI 3.1 document is generated from the schemas that validate requests and serialise
 * responses: there is no second copy to keep in step. This file only adds what routes do not
 * say themselves: the security schemes, the error answers, tags, and the callback as a webhook.
 */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Sika payment operations API',
        version: '1.0.0',
        description: apiDescription,
        license: { name: 'Proprietary', identifier: 'LicenseRef-Sika' },
      },
      // Relative: "Try it out" calls the origin the page was opened at (localhost, 127.0.0.1 or a
      // public name alike), which is also the only origin the page's Content-Security-Policy allows.
      servers: [{ url: '/', description: 'This Sika instance: the origin that serves this document' }],
      tags: documentTags,
      components: {
        securitySchemes: {
          apiKey: {
            type: 'apiKey',
            in: 'header',
            name: 'api-key',
            description: 'pk_test_... (sandbox) or pk_live_...',
          },
          secretKey: {
            type: 'apiKey',
            in: 'header',
            name: 'secret-key',
            description: 'sk_test_... or sk_live_...; shown once',
          },
        },
      },
      webhooks: { operationStatus: callbackWebhook() },
    },
  })
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger())
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    // Everything is served from the installed package: the page asks no outside host for anything.
    staticCSP: true,
    // No outside source at all, and no upgrade to https for an instance served over plain http.
    transformStaticCSP: (header: string) =>
      header
        .split(';')
        .map((directive) => directive.replace(/\s(https:|validator\.swagger\.io)/g, '').trim())
        .filter((directive) => directive && directive !== 'upgrade-insecure-requests')
        .join('; '),
    // BaseLayout: without Swagger's top bar, whose logo is an SVG with a <style> element that
    // `style-src 'self'` rightly refuses, and whose box would explore other documents.
    uiConfig: {
      layout: 'BaseLayout',
      docExpansion: 'list',
      deepLinking: true,
      defaultModelsExpandDepth: 0,
      tryItOutEnabled: true,
    },
  })
}

const errorCodesByStatus = new Map<number, ErrorCode[]>()
for (const [code, entry] of Object.entries(errorRegistry) as [ErrorCode, { status: number }][]) {
  errorCodesByStatus.set(entry.status, [...(errorCodesByStatus.get(entry.status) ?? []), code])
}

export function errorResponse(codes: readonly ErrorCode[]): TSchema {
  return Type.Object(
    {
      ...ErrorEnvelope.properties,
      code: Type.Union(
        codes.map((code) => Type.Literal(code)),
        {
          description:
            'One of the codes below; each is in the error table of the guides (docs/guide/errors.md)',
        },
      ),
    },
    { description: codes.map((code) => `\`${code}\`: ${errorRegistry[code].message}`).join('\n\n') },
  )
}

/** Codes only a refund can answer: it alone refunds an operation, and claims part of what it collected. */
const refundOnly: readonly ErrorCode[] = ['not_refundable', 'refund_exceeds_collected']
/** Codes only a payment link's own routes answer, which declare them themselves. */
const linkOnly: readonly ErrorCode[] = ['link_unavailable']

/**
 * Registered in the /api/v1 scope: every route there needs both key headers and may answer the
 * errors its shape allows. Any request may meet Node's parser (400 bad_request, 408, 431), the
 * key checks, the limits and the store; a body adds 400 invalid_json, 413 and 415; parameters 404;
 * a query or a body 422. An initiation, a refund included, may answer every refusal of its status
 * in the registry but those only a refund can answer: a code left out would be a refusal its
 * route does not document (a refund of a live Orange Money collect is a 422 channel_unavailable).
 */
export function documentApiRoutes(app: FastifyInstance): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    const schema = (route.schema ?? {}) as FastifySchema & { security?: unknown; hide?: boolean }
    route.schema = schema
    if (schema.hide) return
    const methods = Array.isArray(route.method) ? route.method : [route.method]
    const takesBody = methods.includes('POST')
    const initiates = Boolean(
      (schema.body as { properties?: Record<string, unknown> } | undefined)?.properties?.merchantReference,
    )
    const answers = new Map<number, readonly ErrorCode[]>([
      [400, takesBody ? ['bad_request', 'invalid_json'] : ['bad_request']],
      [401, ['missing_credentials', 'invalid_credentials']],
      [403, ['merchant_suspended']],
      [408, ['request_timeout']],
      [429, ['rate_limited']],
      [431, ['headers_too_large']],
      [500, ['internal_error']],
      [503, ['unavailable']],
    ])
    if (schema.params) answers.set(404, ['not_found'])
    if (takesBody) {
      answers.set(413, ['payload_too_large'])
      answers.set(415, ['unsupported_media_type'])
    }
    if (schema.querystring || takesBody) answers.set(422, ['validation_failed'])
    // A cancel (POST /disbursement/{token}/cancel, /payout-batch/{token}/cancel).
    if (takesBody && route.url.endsWith('/cancel')) answers.set(409, ['not_cancelable'])
    // An initiation on an existing operation (a refund: POST /collect/{token}/refund).
    const refunds = initiates && Boolean(schema.params)
    if (initiates && !refunds && paysOutOnRoute(schema))
      answers.set(403, ['merchant_suspended', 'payouts_paused'])
    if (initiates) {
      const refusals = (status: number) =>
        (errorCodesByStatus.get(status) ?? []).filter(
          (code) => (refunds || !refundOnly.includes(code)) && !linkOnly.includes(code),
        )
      answers.set(409, refusals(409))
      answers.set(422, refusals(422))
    }
    schema.security ??= [{ apiKey: [], secretKey: [] }]
    const errors = Object.fromEntries([...answers].map(([status, codes]) => [status, errorResponse(codes)]))
    schema.response = { ...errors, ...(schema.response as object) }
  })
}

/** A route that initiates payouts, by its tags: a kind that pays out, or a payout batch. */
function paysOutOnRoute(schema: FastifySchema & { tags?: readonly string[] }): boolean {
  return (schema.tags ?? []).some(
    (tag) =>
      tag === 'payout-batch' ||
      ((operationKindNames as readonly string[]).includes(tag) && paysOut(tag as OperationKind)),
  )
}

function callbackWebhook() {
  const payload = Type.Object({
    id: Type.String({ description: 'evt_...: the webhook-id header; deduplicate on it' }),
    type: EventType,
    createdAt: Type.String({
      description: 'When the operation took the status: ISO 8601 in UTC with microseconds and a trailing Z',
    }),
    mode: Type.Union([Type.Literal('sandbox'), Type.Literal('live')], {
      description: 'The mode of the operation; each mode signs with its own webhook secret',
    }),
    data: Type.Union(
      [
        ...operationKindNames.map((kind) =>
          Type.Object({ [operationKinds[kind].dataKey.details]: operationRecordOf(kind) }),
        ),
        Type.Object({ payoutBatch: PayoutBatchRecord }),
      ],
      { description: 'The record as the details endpoint returns it, under its data key' },
    ),
  })
  const header = (name: string, description: string) => ({
    name,
    in: 'header' as const,
    required: true,
    description,
    schema: { type: 'string' as const },
  })
  return {
    post: {
      operationId: 'receiveOperationStatus',
      tags: ['events'],
      summary: 'A status an operation took, POSTed to its callbackUrl',
      description:
        'Signed by the Standard Webhooks specification with the merchant\u2019s webhook secret (whsec_...). ' +
        'A 2xx within 10 s delivers; 410 stops; anything else, redirects included, is retried after about ' +
        '1 min, 5 min, 30 min, 2 h, 6 h, 12 h, 24 h, 48 h and 72 h, then given up. Deliveries can repeat: ' +
        'deduplicate by webhook-id.',
      parameters: [
        header('webhook-id', 'The event id'),
        header('webhook-timestamp', 'Unix seconds when sent'),
        header(
          'webhook-signature',
          'v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">, space-separated during a rotation',
        ),
      ],
      requestBody: { required: true, content: { 'application/json': { schema: payload as object } } },
      responses: {
        '200': { description: 'Delivered (any 2xx)' },
        '410': { description: 'Stop sending this event' },
      },
    },
  }
}

const sandboxTable = Object.entries(sandboxBehaviours)
  .map(([suffix, behaviour]) => `| ${suffix} | ${describeSandboxBehaviour(behaviour)} |`)
  .join('\n')

const apiDescription = `Collect, pay out, withdraw, recharge and transfer mobile money, read every operation back,
list the balance movements, and receive signed callbacks.

Every request carries the two headers \`api-key\` and \`secret-key\`. Sandbox keys (\`pk_test_\`) never
reach an operator: the customer phone number's last three digits choose the outcome.

| phone ends in | sandbox outcome |
|---|---|
| any other | \`succeeded\` at once |
${sandboxTable}

Amounts are numbers in the major unit of the country's currency (XOF and XAF have no decimals).
Each operation is priced by the merchant's fee for its kind, channel and country (GET /api/v1/channels
lists them): \`feesAmount\` = amount × percentageFee / 100 + additionalFee. \`supportedByAccount\`
says who bears that fee, not whether the operation is allowed: \`true\`, the merchant's balance
(a collect of 5000 at 1.5 % credits 4925, and the customer pays 5000); \`false\`, the customer (the
customer pays 5075, and 5000 is credited). \`cashAmount\` is what moves on the merchant's balance,
\`transactionAmount\` what moves on the customer's wallet.

Failures use one envelope: \`{ success: false, statusCode, code, message, errors?, requestId }\`.`
