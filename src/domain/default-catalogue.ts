/**
 * The channel catalogue and default fee schedule as first shipped (migration 0002).
 * Frozen: later changes to the catalogue are new migrations, so every store that ran 0002
 * holds exactly these rows. Amounts are in major units of the route's currency.
 */
export const defaultChannels: ReadonlyArray<{
  channel: string
  name: string
  countries: readonly string[]
}> = [
  { channel: 'orange-money', name: 'Orange Money', countries: ['CI', 'SN', 'BF', 'ML', 'GW', 'CM', 'CF'] },
  { channel: 'mtn-momo', name: 'MTN Mobile Money', countries: ['CI', 'BJ', 'GW', 'CM', 'CG', 'GH', 'UG'] },
  { channel: 'moov-money', name: 'Moov Money', countries: ['CI', 'BJ', 'TG', 'BF', 'ML', 'NE', 'GA', 'TD'] },
  { channel: 'wave', name: 'Wave', countries: ['CI', 'SN', 'BF', 'ML'] },
  { channel: 'free-money', name: 'Free Money', countries: ['SN'] },
  { channel: 't-money', name: 'T-Money', countries: ['TG'] },
  { channel: 'airtel-money', name: 'Airtel Money', countries: ['NE', 'GA', 'CG', 'TD', 'KE', 'UG'] },
  { channel: 'telecel-cash', name: 'Telecel Cash', countries: ['GH'] },
  { channel: 'at-money', name: 'AT Money', countries: ['GH'] },
  { channel: 'mpesa', name: 'M-Pesa', countries: ['KE'] },
]

/** Wallet limits per currency for the customer-facing kinds, and merchant-level ones for the others. */
export const defaultLimits: Record<string, { wallet: [number, number]; merchant: [number, number] }> = {
  XOF: { wallet: [100, 2_000_000], merchant: [100, 50_000_000] },
  XAF: { wallet: [100, 2_000_000], merchant: [100, 50_000_000] },
  GHS: { wallet: [1, 20_000], merchant: [1, 5_000_000] },
  KES: { wallet: [10, 250_000], merchant: [10, 10_000_000] },
  UGX: { wallet: [500, 5_000_000], merchant: [500, 100_000_000] },
}

/** Kinds a customer's wallet takes part in; recharge and withdraw move the merchant's own money. */
export const walletKinds = ['collect', 'disbursement'] as const

/**
 * Default fees, by kind, for every channel and country. Recharges are free, so a top-up lands
 * whole (the sandbox's opening balance is exactly 1,000,000). Wave is priced lower, as it is
 * in the market.
 */
export const defaultFees: ReadonlyArray<{
  kind: string
  channel: string
  percentageFee: number
  supportedByAccount: boolean
}> = [
  { kind: 'collect', channel: '*', percentageFee: 1.5, supportedByAccount: true },
  { kind: 'collect', channel: 'wave', percentageFee: 1, supportedByAccount: true },
  { kind: 'recharge', channel: '*', percentageFee: 0, supportedByAccount: false },
  { kind: 'disbursement', channel: '*', percentageFee: 1, supportedByAccount: true },
  { kind: 'disbursement', channel: 'wave', percentageFee: 0.5, supportedByAccount: true },
  { kind: 'withdraw', channel: '*', percentageFee: 0.5, supportedByAccount: true },
]
