import type { OperationKind } from '../domain/kinds.ts'

/**
 * One realistic request per kind for the OpenAPI document, with the record it produces under
 * the default fee schedule (collect 1.5 %, recharge free, disbursement 1 % and wave 0.5 %,
 * withdraw 0.5 %, all borne by the merchant but recharge).
 */
const callbackUrl = 'https://merchant.example/sika/callback'

const customer = (fullName: string, phoneNumber: string, email = '') => ({ fullName, phoneNumber, email })

const single = (
  kind: Exclude<OperationKind, 'transfer'>,
  channel: string,
  country: string,
  amount: number,
  percentageFee: number,
  supportedByAccount: boolean,
  who: ReturnType<typeof customer>,
  merchantReference: string,
) => {
  const feesAmount = Math.round((amount * percentageFee) / 100)
  const cashIn = kind === 'collect' || kind === 'recharge'
  const merchantBears = supportedByAccount
  const cashAmount = cashIn
    ? merchantBears
      ? amount - feesAmount
      : amount
    : merchantBears
      ? amount + feesAmount
      : amount
  const transactionAmount = cashIn
    ? merchantBears
      ? amount
      : amount + feesAmount
    : merchantBears
      ? amount
      : amount - feesAmount
  return {
    request: {
      amount,
      channel,
      country,
      customer: who.email ? who : { fullName: who.fullName, phoneNumber: who.phoneNumber },
      merchantReference,
      succeededUrl: 'https://merchant.example/orders/done',
      callbackUrl,
    },
    record: {
      operation: kind,
      token: 'k3v9q-7hx2m-p0d4r-a8n1s-w5c6e',
      status: 'succeeded',
      amount,
      pricing: { percentageFee, additionalFee: 0, feesAmount, supportedByAccount },
      cashAmount,
      transactionAmount,
      customer: who,
      merchantReference,
      initiationDate: '2026-11-21T10:15:30.123456Z',
      currency: 'XOF',
      completionDate: '2026-11-21T10:15:30.456789Z',
      channel,
      country,
    },
  }
}

export const kindExamples = {
  collect: single(
    'collect',
    'orange-money',
    'CI',
    5000,
    1.5,
    true,
    customer('Awa Kone', '+2250700000002', 'awa@example.com'),
    'order-1001',
  ),
  recharge: single(
    'recharge',
    'orange-money',
    'CI',
    50000,
    0,
    false,
    customer('Treasury', '+2250700000001'),
    'recharge-0001',
  ),
  disbursement: single(
    'disbursement',
    'wave',
    'SN',
    10000,
    0.5,
    true,
    customer('Moussa Diop', '+221770000003'),
    'payout-2001',
  ),
  withdraw: single(
    'withdraw',
    'mtn-momo',
    'CI',
    100000,
    0.5,
    true,
    customer('Merchant treasury', '+2250500000004'),
    'withdraw-3001',
  ),
  transfer: {
    request: {
      from: {
        amount: 7000,
        channel: 'orange-money',
        country: 'CI',
        customer: { phoneNumber: '+2250700000005' },
      },
      to: { amount: 6500, channel: 'moov-money', country: 'BJ', customer: { phoneNumber: '+22961000006' } },
      merchantReference: 'transfer-4001',
      callbackUrl,
    },
    record: {
      operation: 'transfer',
      token: 'b8i3r-no9i8-ruu1r-hqty0-ze9sy',
      status: 'succeeded',
      from: {
        amount: 7000,
        pricing: { percentageFee: 1.5, additionalFee: 0, feesAmount: 105, supportedByAccount: true },
        cashAmount: 6895,
        transactionAmount: 7000,
        customer: customer('', '+2250700000005'),
        channel: 'orange-money',
        country: 'CI',
        currency: 'XOF',
        status: 'succeeded',
      },
      to: {
        amount: 6500,
        pricing: { percentageFee: 1, additionalFee: 0, feesAmount: 65, supportedByAccount: true },
        cashAmount: 6565,
        transactionAmount: 6500,
        customer: customer('', '+22961000006'),
        channel: 'moov-money',
        country: 'BJ',
        currency: 'XOF',
        status: 'succeeded',
      },
      merchantReference: 'transfer-4001',
      initiationDate: '2026-11-21T10:15:30.123456Z',
      currency: 'XOF',
      completionDate: '2026-11-21T10:15:31.002345Z',
    },
  },
} satisfies Record<OperationKind, { request: object; record: object }>

export const transactionExample = {
  reference: 'TX20261121.k3v9q.00000042',
  operation: 'collect',
  amount: 4925,
  type: 'cash-in',
  status: 'succeeded',
  date: '2026-11-21T10:15:30.456789Z',
  currency: 'XOF',
  token: 'k3v9q-7hx2m-p0d4r-a8n1s-w5c6e',
}
