import type { SimulatorOptions } from '../simulator.ts'
import type { OperationKind } from './operations.ts'
import { generateApiToken } from './tokens.ts'

/** A key pair pawaPay would sign callbacks with; its public half is served at /v2/public-key/http. */
export interface SigningKeyOptions {
  /** The `keyid` of Signature-Input, e.g. `HTTP_EC_P256_KEY:1` as in pawaPay's examples. */
  readonly id: string
  /** An ECDSA P-256 private key, PEM. */
  readonly privateKeyPem: string
}

export interface PawapaySimulatorOptions extends SimulatorOptions {
  /** The merchant's API token (default: a generated JWT-shaped one). */
  apiToken?: string
  /**
   * Callback URLs per operation, as set in the Dashboard (Settings, Callback URLs); each falls back
   * to `webhookUrl`. Without any, no callback is sent, as when none is configured.
   */
  depositCallbackUrl?: string
  payoutCallbackUrl?: string
  refundCallbackUrl?: string
  /** The company name of the account (active configuration's `companyName`). */
  companyName?: string
  /** The transaction limits of every provider (default 1 and 10000000). */
  minAmount?: string
  maxAmount?: string
  /** Providers whose status is CLOSED: initiations are rejected PROVIDER_TEMPORARILY_UNAVAILABLE. */
  closedProviders?: readonly string[]
  /** Sign callbacks per RFC 9421 (Dashboard "signed callbacks"); default false. */
  signCallbacks?: boolean
  /** The signing key (default: a P-256 key generated at start). */
  signingKey?: SigningKeyOptions
  /**
   * Delays before each retry of a callback the receiver did not answer 2xx (default 5 s, 30 s,
   * 2 min, 10 min: pawaPay retries for up to 15 minutes, schedule not published).
   */
  callbackRetryDelaysMs?: readonly number[]
  /**
   * The HTTP status of AUTHENTICATION_ERROR (a wrong token): 401 (default) as in the API
   * reference's examples, or 403 as in the failure-codes table. SOURCES.md, "Authentication".
   */
  invalidTokenStatus?: 401 | 403
  /** Include `clientReferenceId` in callbacks (default false: the callback schema lacks it). */
  callbackClientReferenceId?: boolean
  /**
   * The most payouts one POST /v2/payouts/bulk may carry (default 20: "Bulk requests with more
   * than 20 payout transactions may be rejected", D-BULK); more is a 400.
   */
  largestBulk?: number
  /** Each wallet's float before any payment moves it, in major units (default 1000000). */
  walletOpeningBalance?: string
  /** pawaPay's fee on each payment, in percent of its amount (default 0: fees are per contract, not published). */
  feePercent?: number
  /** How long a statement takes to generate (default `settleDelayMs`). */
  statementDelayMs?: number
  /** How long a statement's downloadUrl works after it is generated (default 1 day, as documented). */
  statementUrlLifetimeMs?: number
}

export interface SimulatorConfig {
  readonly host: string
  readonly port: number
  readonly settleDelayMs: number
  readonly hangMs: number
  readonly apiToken: string
  readonly callbackUrls: Readonly<Record<OperationKind, string | undefined>>
  readonly companyName: string
  readonly minAmount: string
  readonly maxAmount: string
  readonly closedProviders: readonly string[]
  readonly signCallbacks: boolean
  readonly signingKey: SigningKeyOptions | undefined
  readonly callbackRetryDelaysMs: readonly number[]
  readonly invalidTokenStatus: 401 | 403
  readonly callbackClientReferenceId: boolean
  readonly largestBulk: number
  readonly walletOpeningBalance: string
  readonly feePercent: number
  readonly statementDelayMs: number
  readonly statementUrlLifetimeMs: number
}

export function resolveConfig(options: PawapaySimulatorOptions = {}): SimulatorConfig {
  return {
    host: options.host ?? '127.0.0.1',
    port: options.port ?? 0,
    settleDelayMs: options.settleDelayMs ?? 1000,
    hangMs: options.hangMs ?? 15_000,
    apiToken: options.apiToken ?? generateApiToken(),
    callbackUrls: {
      deposit: options.depositCallbackUrl ?? options.webhookUrl,
      payout: options.payoutCallbackUrl ?? options.webhookUrl,
      refund: options.refundCallbackUrl ?? options.webhookUrl,
    },
    companyName: options.companyName ?? 'Sika Test Merchant',
    minAmount: options.minAmount ?? '1',
    maxAmount: options.maxAmount ?? '10000000',
    closedProviders: options.closedProviders ?? [],
    signCallbacks: options.signCallbacks ?? false,
    signingKey: options.signingKey,
    callbackRetryDelaysMs: options.callbackRetryDelaysMs ?? [5_000, 30_000, 120_000, 600_000],
    invalidTokenStatus: options.invalidTokenStatus ?? 401,
    callbackClientReferenceId: options.callbackClientReferenceId ?? false,
    largestBulk: options.largestBulk ?? 20,
    walletOpeningBalance: options.walletOpeningBalance ?? '1000000',
    feePercent: options.feePercent ?? 0,
    statementDelayMs: options.statementDelayMs ?? options.settleDelayMs ?? 1000,
    statementUrlLifetimeMs: options.statementUrlLifetimeMs ?? 86_400_000,
  }
}
