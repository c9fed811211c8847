/**
 * The one definition of the five operation kinds. Routes, schemas, messages, pricing and
 * the direction of money are all derived from this table: a sixth kind is one entry here.
 * Names and messages are the published specification's, quirks included.
 */
export const operationKinds = {
  collect: {
    path: 'collect',
    summary: 'Collect money from a customer\u2019s mobile-money wallet into the merchant balance.',
    shape: 'single',
    direction: 'cash-in',
    dataKey: { created: 'collect', details: 'collect', list: 'collects' },
    message: { created: 'Collect !', details: 'Collect !', list: 'Collects !' },
  },
  recharge: {
    path: 'recharge',
    summary: 'Top up the merchant balance from a mobile-money wallet.',
    shape: 'single',
    direction: 'cash-in',
    // The spec's sample answers the initiation under `collect`; its field list says `recharge`.
    dataKey: { created: 'recharge', details: 'recharge', list: 'recharges' },
    message: { created: 'Recharge !', details: 'Recharge !', list: 'Recharges !' },
  },
  disbursement: {
    path: 'disbursement',
    summary: 'Pay a customer out from the merchant balance to their wallet.',
    shape: 'single',
    direction: 'cash-out',
    dataKey: { created: 'disbursement', details: 'disbursement', list: 'disbursements' },
    message: { created: 'Disbursement !', details: 'Disbursement !', list: 'Disbursement !' },
  },
  withdraw: {
    path: 'withdraw',
    summary: 'Withdraw part of the merchant balance to a wallet.',
    shape: 'single',
    direction: 'cash-out',
    // The spec lists withdrawals under `disbursements`.
    dataKey: { created: 'withdraw', details: 'withdraw', list: 'disbursements' },
    message: { created: 'Withdraw !', details: 'Withdraw !', list: 'Withdraw !' },
  },
  transfer: {
    path: 'transfer',
    summary: 'Move money between two customers: the from side collects, the to side pays out.',
    shape: 'transfer',
    // The `from` side collects, the `to` side pays out.
    direction: 'both',
    dataKey: { created: 'transfer', details: 'transfer', list: 'transfers' },
    message: { created: 'Transfer !', details: 'Transfer !', list: 'Transfers !' },
  },
} as const

export type OperationKind = keyof typeof operationKinds
export const operationKindNames = Object.keys(operationKinds) as OperationKind[]

/** The kinds of one side of money: what a channel route can serve and a fee row prices. */
export const sideKinds = ['collect', 'recharge', 'disbursement', 'withdraw'] as const
export type SideKind = (typeof sideKinds)[number]
export type Direction = 'cash-in' | 'cash-out'

export function directionOf(kind: SideKind): Direction {
  return operationKinds[kind].direction
}

export function isOperationKind(value: string): value is OperationKind {
  return Object.hasOwn(operationKinds, value)
}

export const modes = ['sandbox', 'live'] as const
export type Mode = (typeof modes)[number]
