import { type Static, Type } from 'typebox'
import { tokenPattern } from '../domain/identifiers.ts'
import { paymentLinkStatuses } from '../domain/payment-links.ts'
import { httpUrl, Metadata, merchantReference, pageQuery, recordMetadata } from './schemas.ts'

/** CONTRACT.md, Payment links: the request and the record, described for merchants. */

const amountMajor = (description: string) => Type.Number({ exclusiveMinimum: 0, maximum: 1e12, description })

export const PaymentLinkBody = Type.Object(
  {
    merchantReference: Type.Unsafe<string>({
      ...merchantReference,
      description:
        'Unique per merchant and mode among your payment links; 1 to 64 printable characters. Each payment through the link is a collect whose merchantReference is this one followed by -1, -2, -3... when that fits in 64 characters; otherwise its first 45 characters, a hyphen, 10 hexadecimal characters derived from the whole reference, and -1, -2, -3...',
    }),
    description: Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'What the customer pays for, shown on the payment page: 1 to 200 characters',
    }),
    country: Type.String({
      pattern: '^[A-Z]{2}$',
      description:
        'ISO 3166-1 alpha-2, such as CI: the country of the customers’ wallets; it sets the currency',
    }),
    amount: Type.Optional(
      amountMajor(
        'A fixed amount before fees, in major units of the country’s currency. Give exactly one of amount and amountRange',
      ),
    ),
    amountRange: Type.Optional(
      Type.Object(
        {
          min: amountMajor('The smallest amount the customer may type, in major units'),
          max: amountMajor('The largest amount the customer may type, in major units'),
        },
        {
          additionalProperties: false,
          description: 'The customer types the amount, within these bounds (both included)',
        },
      ),
    ),
    channels: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 40, pattern: '^[a-z0-9-]+$' }), {
        minItems: 1,
        maxItems: 20,
        description:
          'The channels the customer may choose from (GET /api/v1/channels?country=CI&kind=collect lists them). Default: every channel this mode serves in the country whose limits take the amount',
      }),
    ),
    reusable: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          'true: any number of customers may pay it until it expires or is closed. false (default): it takes one succeeded payment, then its status is completed',
      }),
    ),
    expiresAt: Type.Optional(
      Type.String({
        maxLength: 40,
        description:
          'ISO 8601 date-time after which the link takes no payment: at most 90 days away; default 7 days',
      }),
    ),
    callbackUrl: Type.Optional(
      httpUrl(
        'Where each status of every collect paid through the link is POSTed as a signed event, as for a collect',
      ),
    ),
    succeededUrl: Type.Optional(
      httpUrl(
        'Where the customer’s browser goes after a succeeded payment, with token, merchantReference and status of the collect in the query. A redirect never settles money: read the collect or wait for the callback',
      ),
    ),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
)
export type PaymentLinkBody = Static<typeof PaymentLinkBody>

const token = Type.String({
  pattern: tokenPattern,
  description: 'The link’s token, issued by Sika: five groups of five lower-case letters and digits',
})

export const PaymentLinkParams = Type.Object({ token })

/** Close takes no field: no body, an empty one, or {}; a field in it is a 422 unknown_field. */
export const PaymentLinkCloseBody = Type.Object(
  {},
  { additionalProperties: false, description: 'No body, or an empty object: closing takes no field' },
)

const linkStatus = (description: string) =>
  Type.Union(
    paymentLinkStatuses.map((status) => Type.Literal(status)),
    { description },
  )

/** CONTRACT.md, Lists: the list query of the other lists, on the link's own statuses. */
export const PaymentLinkListQuery = Type.Object(
  {
    ...pageQuery,
    status: Type.Optional(linkStatus('Only the links with this status now')),
    merchantReference: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, description: 'Only the link with this merchantReference' }),
    ),
    from: Type.Optional(
      Type.String({ maxLength: 40, description: 'ISO 8601, inclusive, on initiationDate' }),
    ),
    to: Type.Optional(Type.String({ maxLength: 40, description: 'ISO 8601, exclusive, on initiationDate' })),
  },
  { additionalProperties: false },
)
export type PaymentLinkListQuery = Static<typeof PaymentLinkListQuery>

const major = (description: string) => Type.Number({ description })

export const PaymentLinkRecord = Type.Object(
  {
    token,
    url: Type.String({ description: 'The page where customers pay: share it, or show its QR code' }),
    qrCodeUrl: Type.String({ description: 'An SVG image of the QR code of url, served by Sika' }),
    status: linkStatus(
      'active: takes payments; completed: a single-use link was paid; expired: past expiresAt; closed: you closed it',
    ),
    description: Type.String({ description: 'As sent' }),
    amount: Type.Optional(major('The fixed amount, in major units (absent when the customer types it)')),
    amountRange: Type.Optional(
      Type.Object(
        { min: major('Smallest amount, major units'), max: major('Largest amount, major units') },
        { description: 'The bounds of the amount the customer types (absent on a fixed amount)' },
      ),
    ),
    currency: Type.String({ description: 'The country’s currency' }),
    country: Type.String({ description: 'As sent' }),
    channels: Type.Array(Type.String(), { description: 'The channels offered to the customer' }),
    reusable: Type.Boolean({ description: 'Whether it takes more than one succeeded payment' }),
    expiresAt: Type.String({ description: 'ISO 8601 in UTC: when it stops taking payments' }),
    paymentCount: Type.Integer({ description: 'How many payments through it succeeded' }),
    collectedAmount: major(
      'What those payments add up to: the sum of their amounts before fees, in major units',
    ),
    merchantReference: Type.String({ description: 'Your reference, as sent' }),
    initiationDate: Type.String({ description: 'When it was created: ISO 8601 in UTC' }),
    closedAt: Type.Optional(Type.String({ description: 'When you closed it (closed links only)' })),
    callbackUrl: Type.Optional(Type.String({ description: 'As sent' })),
    succeededUrl: Type.Optional(Type.String({ description: 'As sent' })),
    metadata: recordMetadata,
  },
  { description: 'A payment link, as its details endpoint answers it' },
)
