/**
 * The one definition of the operation kinds. Routes, request and record schemas, messages,
 * pricing, holds, the order sides are handed to providers and the OpenAPI document are all
 * derived from these two tables: a new kind is one entry here (and its catalogue rows).
 * Names and messages are the published specification's, quirks included.
 */

/** Which way a side's money goes on the merchant's balance. */
export type Direction = 'cash-in' | 'cash-out'

/**
 * The kinds of one side of money: what a channel route serves and a fee row prices. A cash-in
 * side is credited when it succeeds; a cash-out side is held at initiation, then posted or
 * released. `entryType` is how its movement is listed among the merchant's transactions.
 */
export const sideKinds = {
  collect: { direction: 'cash-in', entryType: 'cash-in' },
  recharge: { direction: 'cash-in', entryType: 'cash-in' },
  disbursement: { direction: 'cash-out', entryType: 'cash-out' },
  withdraw: { direction: 'cash-out', entryType: 'cash-out' },
  // A refund pays the customer back out of the merchant's balance: held, then posted as a reversal.
  refund: { direction: 'cash-out', entryType: 'reversal' },
} as const satisfies Record<string, { direction: Direction; entryType: 'cash-in' | 'cash-out' | 'reversal' }>

export type SideKind = keyof typeof sideKinds
export const sideKindNames = Object.keys(sideKinds) as SideKind[]

/** `main` is the one side of a single-sided kind; a two-sided kind names its sides. */
export type SideRole = 'main' | 'from' | 'to'

interface KindDefinition {
  /** The path under /api/v1. */
  readonly path: string
  readonly summary: string
  /**
   * The sides, in the order they are handed to their providers: each starts only once the ones
   * before it succeeded, and a cash-in side that succeeded is refunded if a later one stops.
   */
  readonly sides: readonly { readonly role: SideRole; readonly sideKind: SideKind }[]
  readonly dataKey: { readonly created: string; readonly details: string; readonly list: string }
  readonly message: { readonly created: string; readonly details: string; readonly list: string }
  /**
   * The kind this kind refunds: it is initiated on one of those (`POST /<its path>/{token}/refund`),
   * to the same customer on the same channel, for at most what is left to refund, with no fee.
   */
  readonly refundOf?: string
}

export const operationKinds = {
  collect: {
    path: 'collect',
    summary: 'Collect money from a customer\u2019s mobile-money wallet into the merchant balance.',
    sides: [{ role: 'main', sideKind: 'collect' }],
    dataKey: { created: 'collect', details: 'collect', list: 'collects' },
    message: { created: 'Collect !', details: 'Collect !', list: 'Collects !' },
  },
  recharge: {
    path: 'recharge',
    summary: 'Top up the merchant balance from a mobile-money wallet.',
    sides: [{ role: 'main', sideKind: 'recharge' }],
    // The spec's sample answers the initiation under `collect`; its field list says `recharge`.
    dataKey: { created: 'recharge', details: 'recharge', list: 'recharges' },
    message: { created: 'Recharge !', details: 'Recharge !', list: 'Recharges !' },
  },
  disbursement: {
    path: 'disbursement',
    summary: 'Pay a customer out from the merchant balance to their wallet.',
    sides: [{ role: 'main', sideKind: 'disbursement' }],
    dataKey: { created: 'disbursement', details: 'disbursement', list: 'disbursements' },
    message: { created: 'Disbursement !', details: 'Disbursement !', list: 'Disbursement !' },
  },
  withdraw: {
    path: 'withdraw',
    summary: 'Withdraw part of the merchant balance to a wallet.',
    sides: [{ role: 'main', sideKind: 'withdraw' }],
    // The spec lists withdrawals under `disbursements`.
    dataKey: { created: 'withdraw', details: 'withdraw', list: 'disbursements' },
    message: { created: 'Withdraw !', details: 'Withdraw !', list: 'Withdraw !' },
  },
  transfer: {
    path: 'transfer',
    summary: 'Move money between two customers: the from side collects, the to side pays out.',
    sides: [
      { role: 'from', sideKind: 'collect' },
      { role: 'to', sideKind: 'disbursement' },
    ],
    dataKey: { created: 'transfer', details: 'transfer', list: 'transfers' },
    message: { created: 'Transfer !', details: 'Transfer !', list: 'Transfers !' },
  },
  refund: {
    path: 'refund',
    summary: 'Refund a succeeded collect, in full or in part, to the customer who paid it.',
    sides: [{ role: 'main', sideKind: 'refund' }],
    refundOf: 'collect',
    dataKey: { created: 'refund', details: 'refund', list: 'refunds' },
    message: { created: 'Refund !', details: 'Refund !', list: 'Refunds !' },
  },
} as const satisfies Record<string, KindDefinition>

export type OperationKind = keyof typeof operationKinds
export const operationKindNames = Object.keys(operationKinds) as OperationKind[]

/** The kinds whose one side is the whole operation: their records and requests are flat. */
export type SingleSidedKind = {
  [Kind in OperationKind]: (typeof operationKinds)[Kind]['sides'] extends readonly [{ role: 'main' }]
    ? Kind
    : never
}[OperationKind]

export function isSingleSided(kind: OperationKind): kind is SingleSidedKind {
  const [first, ...others] = operationKinds[kind].sides
  return others.length === 0 && first?.role === 'main'
}

/** The kind a refund kind refunds, or undefined for a kind that refunds nothing. */
export function refundedKindOf(kind: OperationKind): OperationKind | undefined {
  const definition: KindDefinition = operationKinds[kind]
  return definition.refundOf as OperationKind | undefined
}

/** The kind that refunds this one, or undefined when it cannot be refunded. */
export function refundKindFor(kind: OperationKind): OperationKind | undefined {
  return operationKindNames.find((candidate) => refundedKindOf(candidate) === kind)
}

/**
 * Where a kind is initiated, under /api/v1: its own path, or, for a kind that acts on another
 * operation (a refund), that operation's path with its token: `collect/{token}/refund`.
 */
export function initiationPathOf(kind: OperationKind, tokenParameter: string): string {
  const refunded = refundedKindOf(kind)
  const { path } = operationKinds[kind]
  return refunded ? `${operationKinds[refunded].path}/${tokenParameter}/${path}` : path
}

export function sideRolesOf(kind: OperationKind): SideRole[] {
  return operationKinds[kind].sides.map((side) => side.role)
}

export const modes = ['sandbox', 'live'] as const
export type Mode = (typeof modes)[number]

export function isMode(value: string): value is Mode {
  return (modes as readonly string[]).includes(value)
}

/**
 * A side kind that pays money out of the merchant's balance to a customer (a payout): the entries
 * a daily payout limit counts. A refund's side pays a collect back (a reversal), not a payout.
 */
export function isPayoutSide(sideKind: SideKind): boolean {
  return sideKinds[sideKind].entryType === 'cash-out'
}

/** The ledger entry type of a payout side: what a day's payouts are counted in. */
export const payoutEntryType = 'cash-out' satisfies (typeof sideKinds)[SideKind]['entryType']

/** Whether an operation of this kind pays out (a disbursement, a withdraw, a transfer's to side). */
export function paysOut(kind: OperationKind): boolean {
  return operationKinds[kind].sides.some((side) => isPayoutSide(side.sideKind))
}
