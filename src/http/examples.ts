import { operationRecord } from '../app/records.ts'
import { defaultFees } from '../domain/default-catalogue.ts'
import {
  isSingleSided,
  type OperationKind,
  operationKinds,
  refundedKindOf,
  refundKindFor,
  type SideKind,
  sideKinds,
} from '../domain/kinds.ts'
import { countries, toMinorUnits } from '../domain/money.ts'
import type { Operation, Side } from '../domain/operation.ts'
import { percentageToMilli, price } from '../domain/pricing.ts'

/**
 * One realistic request per kind for the OpenAPI document, and the record it produces, priced by
 * the real pricing function under the default fee schedule: an example can never disagree with
 * what the service answers. A new kind without an example here does not compile.
 */
interface ExampleSide {
  amount: number
  channel: string
  country: keyof typeof countries
  customer: { fullName?: string; phoneNumber: string; email?: string }
}

const exampleSides: Record<OperationKind, Record<string, ExampleSide>> = {
  collect: {
    main: {
      amount: 5000,
      channel: 'orange-money',
      country: 'CI',
      customer: { fullName: 'Awa Kone', phoneNumber: '+2250700000002', email: 'awa@example.com' },
    },
  },
  recharge: {
    main: {
      amount: 50000,
      channel: 'orange-money',
      country: 'CI',
      customer: { fullName: 'Treasury', phoneNumber: '+2250700000001' },
    },
  },
  disbursement: {
    main: {
      amount: 10000,
      channel: 'wave',
      country: 'SN',
      customer: { fullName: 'Moussa Diop', phoneNumber: '+221770000003' },
    },
  },
  withdraw: {
    main: {
      amount: 100000,
      channel: 'mtn-momo',
      country: 'CI',
      customer: { fullName: 'Merchant treasury', phoneNumber: '+2250500000004' },
    },
  },
  refund: {
    main: {
      amount: 2000,
      channel: 'orange-money',
      country: 'CI',
      customer: { fullName: 'Awa Kone', phoneNumber: '+2250700000002', email: 'awa@example.com' },
    },
  },
  transfer: {
    from: {
      amount: 7000,
      channel: 'orange-money',
      country: 'CI',
      customer: { phoneNumber: '+2250700000005' },
    },
    to: {
      amount: 6500,
      channel: 'moov-money',
      country: 'BJ',
      customer: { phoneNumber: '+22961000006' },
    },
  },
}

/** As in the README's walk-through. */
const exampleReferences: Record<OperationKind, string> = {
  collect: 'order-1001',
  recharge: 'recharge-0001',
  disbursement: 'payout-2001',
  withdraw: 'withdraw-3001',
  transfer: 'transfer-4001',
  refund: 'refund-5001',
}

const callbackUrl = 'https://merchant.example/sika/callback'
const initiatedAtUs = Date.UTC(2026, 10, 21, 10, 15, 30) * 1000 + 123_456

const noFee = { percentageMilli: 0, additionalFeeMinor: 0, supportedByAccount: true }

/** The default fee row for the side kind and channel, as migration 0002 wrote it; a refund carries none. */
function defaultRule(kind: SideKind, channel: string, refund: boolean) {
  if (refund) return noFee
  const row =
    defaultFees.find((fee) => fee.kind === kind && fee.channel === channel) ??
    defaultFees.find((fee) => fee.kind === kind && fee.channel === '*')
  if (!row) throw new Error(`no default fee for ${kind}`)
  return {
    percentageMilli: percentageToMilli(row.percentageFee) ?? 0,
    additionalFeeMinor: 0,
    supportedByAccount: row.supportedByAccount,
  }
}

function pricedSide(role: Side['role'], kind: SideKind, example: ExampleSide, refund: boolean): Side {
  const currency = countries[example.country]
  const amountMinor = toMinorUnits(example.amount, currency)!
  const rule = defaultRule(kind, example.channel, refund)
  const priced = price(amountMinor, sideKinds[kind].direction, rule)!
  return {
    role,
    kind,
    channel: example.channel,
    country: example.country,
    currency,
    ...priced,
    ...rule,
    customer: {
      fullName: example.customer.fullName ?? '',
      phoneNumber: example.customer.phoneNumber,
      email: example.customer.email ?? '',
    },
    status: 'succeeded',
  }
}

const exampleToken = 'k3v9q-7hx2m-p0d4r-a8n1s-w5c6e'
const refundedToken = 'r7t2b-9kq4d-m3x8p-c1v6n-h5w0z'

function exampleOf(kind: OperationKind) {
  const refundedKind = refundedKindOf(kind)
  const sides = operationKinds[kind].sides.map(({ role, sideKind }) =>
    pricedSide(role, sideKind, exampleSides[kind][role]!, refundedKind !== undefined),
  )
  const merchantReference = exampleReferences[kind]
  const operation: Operation = {
    id: 1,
    token: exampleToken,
    merchantId: 'mer_example',
    mode: 'sandbox',
    kind,
    position: 1,
    status: 'succeeded',
    merchantReference,
    requestHash: '',
    currency: sides[0]!.currency,
    sides,
    urls: { callbackUrl },
    redirectUrl: null,
    failure: null,
    initiatedAtUs,
    completedAtUs: initiatedAtUs + 333_333,
    updatedAtUs: initiatedAtUs + 333_333,
    ...(refundedKind ? { refundOf: { id: 0, token: refundedToken } } : {}),
    ...(refundKindFor(kind) ? { refunds: { refundableMinor: sides[0]!.amountMinor, refundedMinor: 0 } } : {}),
  }
  if (refundedKind)
    return {
      request: { merchantReference, amount: exampleSides[kind].main!.amount, callbackUrl },
      record: operationRecord(operation),
    }
  const requestSides = isSingleSided(kind)
    ? exampleSides[kind].main
    : Object.fromEntries(operationKinds[kind].sides.map(({ role }) => [role, exampleSides[kind][role]]))
  return {
    request: {
      ...requestSides,
      merchantReference,
      succeededUrl: 'https://merchant.example/orders/done',
      callbackUrl,
    },
    record: operationRecord(operation),
  }
}

export const kindExamples = Object.fromEntries(
  (Object.keys(operationKinds) as OperationKind[]).map((kind) => [kind, exampleOf(kind)]),
) as Record<OperationKind, ReturnType<typeof exampleOf>>
