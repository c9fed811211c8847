import { randomBytes } from 'node:crypto'
import type { SimulatorOptions } from '../simulator.ts'

/**
 * How Wave authenticates the webhooks it sends (docs.wave.com/webhook, "Security"): a signing
 * secret signs each body (`Wave-Signature`), a shared secret is sent as `Authorization: Bearer`.
 */
export type WebhookSecurity = 'signing-secret' | 'shared-secret'

/** Wave records a payout and executes it at once ("synchronous"), or leaves it processing a while. */
export type PayoutSettlement = 'synchronous' | 'asynchronous'

export interface WaveSimulatorOptions extends SimulatorOptions {
  /** The business API key every call must carry (default: a generated `wave_sn_prod_…`). */
  apiKey?: string
  /** The webhook's secret (default: a generated `wave_sn_WHS_…`). */
  webhookSecret?: string
  /**
   * More secrets that sign every webhook too, each adding a `v1=` to `Wave-Signature`, as while a
   * webhook's secret is being rotated (docs.wave.com/webhook: several v1 values may appear).
   */
  additionalWebhookSecrets?: readonly string[]
  /** Default `signing-secret`. */
  webhookSecurity?: WebhookSecurity
  /** Waits between a webhook's failed delivery and its next try (default: retries over 3 days). */
  webhookRetryDelaysMs?: readonly number[]
  /** How long a receiver has to answer a webhook (docs: "respond within 5 seconds"). */
  webhookTimeoutMs?: number
  /** The `business_name` of checkout sessions. */
  businessName?: string
  /** The wallet's country, as in Wave's key prefixes (`wave_sn_prod_`); default `sn`. */
  countryCode?: string
  /** The currencies of the business wallet (default XOF, the currency of Wave's francophone markets). */
  currencies?: readonly string[]
  /** A checkout session's life before it expires (default 1800 s, 30 minutes). */
  checkoutLifetimeSeconds?: number
  /** Default `synchronous`, as the Payout API documents it. */
  payoutSettlement?: PayoutSettlement
  /** The payout fee, in percent of `receive_amount` (default 1, as in every example of the docs). */
  payoutFeePercent?: number
  /** How long a payout can be reversed (default 3 days, as documented). */
  payoutReversalWindowSeconds?: number
  /**
   * Whether a checkout session restricted to a payer (`restrict_payer_mobile`) is paid by that
   * payer on its own after `settleDelayMs` (default true), or waits for its hosted page.
   */
  autoPay?: boolean
  /** The HTTP status of a `request-validation-error` (default 400; the docs name none). */
  validationErrorStatus?: 400 | 422
  /** The wallet's float before any payment moves it, in major units (default 1000000). */
  openingBalance?: string
  /** Wave's fee on a paid checkout, in percent of its amount (default 1, as for payouts; not published). */
  checkoutFeePercent?: number
  /** How many transactions one page of GET /v1/transactions carries (default 1000; not published). */
  transactionsPageSize?: number
}

export interface SimulatorConfig {
  readonly host: string
  readonly port: number
  readonly settleDelayMs: number
  readonly hangMs: number
  readonly apiKey: string
  readonly webhookUrl: string | undefined
  readonly webhookSecret: string
  readonly additionalWebhookSecrets: readonly string[]
  readonly webhookSecurity: WebhookSecurity
  readonly webhookRetryDelaysMs: readonly number[]
  readonly webhookTimeoutMs: number
  readonly businessName: string
  readonly currencies: readonly string[]
  readonly checkoutLifetimeMs: number
  readonly payoutSettlement: PayoutSettlement
  readonly payoutFeePercent: number
  readonly payoutReversalWindowMs: number
  readonly autoPay: boolean
  readonly validationErrorStatus: 400 | 422
  readonly openingBalance: string
  readonly checkoutFeePercent: number
  readonly transactionsPageSize: number
}

const minute = 60_000
const hour = 60 * minute

/**
 * Wave retries a webhook that was not answered 2xx "for up to 3 days" (see SOURCES.md); the
 * spacing is not published, so this schedule only spreads the tries over those 3 days.
 */
export const defaultWebhookRetryDelaysMs: readonly number[] = [
  10_000,
  minute,
  10 * minute,
  hour,
  6 * hour,
  12 * hour,
  24 * hour,
  24 * hour,
]

/** Shaped as the keys of Wave's business portal: a country prefix and a long random tail. */
export function generateApiKey(countryCode = 'sn'): string {
  return `wave_${countryCode}_prod_${randomBytes(48).toString('base64url')}`
}

export function generateWebhookSecret(countryCode = 'sn'): string {
  return `wave_${countryCode}_WHS_${randomBytes(32).toString('base64url')}`
}

export function resolveConfig(options: WaveSimulatorOptions = {}): SimulatorConfig {
  const countryCode = options.countryCode ?? 'sn'
  return {
    host: options.host ?? '127.0.0.1',
    port: options.port ?? 0,
    settleDelayMs: options.settleDelayMs ?? 1000,
    hangMs: options.hangMs ?? 15_000,
    apiKey: options.apiKey ?? generateApiKey(countryCode),
    webhookUrl: options.webhookUrl,
    webhookSecret: options.webhookSecret ?? generateWebhookSecret(countryCode),
    additionalWebhookSecrets: options.additionalWebhookSecrets ?? [],
    webhookSecurity: options.webhookSecurity ?? 'signing-secret',
    webhookRetryDelaysMs: options.webhookRetryDelaysMs ?? defaultWebhookRetryDelaysMs,
    webhookTimeoutMs: options.webhookTimeoutMs ?? 5000,
    businessName: options.businessName ?? 'Sika Simulated Shop',
    currencies: options.currencies ?? ['XOF'],
    checkoutLifetimeMs: (options.checkoutLifetimeSeconds ?? 1800) * 1000,
    payoutSettlement: options.payoutSettlement ?? 'synchronous',
    payoutFeePercent: options.payoutFeePercent ?? 1,
    payoutReversalWindowMs: (options.payoutReversalWindowSeconds ?? 3 * 24 * 3600) * 1000,
    autoPay: options.autoPay ?? true,
    validationErrorStatus: options.validationErrorStatus ?? 400,
    openingBalance: options.openingBalance ?? '1000000',
    checkoutFeePercent: options.checkoutFeePercent ?? 1,
    transactionsPageSize: options.transactionsPageSize ?? 1000,
  }
}
