import { randomBytes, randomUUID } from 'node:crypto'
import type { SimulatorOptions } from '../simulator.ts'
import type { ProductName } from './operations.ts'

/** What MoMo gives a partner for one product: an API user (a UUID), its API key, and the subscription key. */
export interface ProductCredentials {
  readonly apiUser: string
  readonly apiKey: string
  readonly subscriptionKey: string
}

export type ReasonFormat = 'string' | 'object'

export interface MtnMomoSimulatorOptions extends SimulatorOptions {
  /** The X-Target-Environment every call must carry (default `sandbox`, as on MTN's sandbox). */
  targetEnvironment?: string
  collection?: ProductCredentials
  disbursement?: ProductCredentials
  /**
   * The currencies the account accepts; another one fails with INVALID_CURRENCY. Default: any
   * ISO 4217 shaped code (MTN's sandbox takes only EUR, which Sika's currencies are not).
   */
  currencies?: readonly string[]
  /**
   * How a FAILED status carries its reason: `string` (default) is what the live API sends
   * (`"reason": "APPROVAL_REJECTED"`); `object` is the ErrorReason `{code, message}` of MTN's
   * swagger. SOURCES.md, "reason".
   */
  reasonFormat?: ReasonFormat
  /**
   * When set, an X-Callback-Url on another host fails with INVALID_CALLBACK_URL_HOST, as MTN
   * checks it against the API user's providerCallbackHost. Default: any host is accepted.
   */
  providerCallbackHost?: string
  /**
   * Each product account's float: what GET /{product}/v1_0/account/balance answers before any
   * transaction moves it (default 1000, in the first of `currencies`, or EUR).
   */
  availableBalance?: string
}

export interface SimulatorConfig {
  readonly host: string
  readonly port: number
  readonly settleDelayMs: number
  readonly hangMs: number
  readonly tokenLifetimeSeconds: number
  readonly targetEnvironment: string
  readonly credentials: Readonly<Record<ProductName, ProductCredentials>>
  readonly currencies: readonly string[] | undefined
  readonly reasonFormat: ReasonFormat
  readonly providerCallbackHost: string | undefined
  readonly availableBalance: string
}

/** Shaped as MoMo issues them: the API user is a UUID v4, the keys 32 hex characters. */
export function generateCredentials(): ProductCredentials {
  return {
    apiUser: randomUUID(),
    apiKey: randomBytes(16).toString('hex'),
    subscriptionKey: randomBytes(16).toString('hex'),
  }
}

export function resolveConfig(options: MtnMomoSimulatorOptions = {}): SimulatorConfig {
  return {
    host: options.host ?? '127.0.0.1',
    port: options.port ?? 0,
    settleDelayMs: options.settleDelayMs ?? 1000,
    hangMs: options.hangMs ?? 15_000,
    tokenLifetimeSeconds: options.tokenLifetimeSeconds ?? 3600,
    targetEnvironment: options.targetEnvironment ?? 'sandbox',
    credentials: {
      collection: options.collection ?? generateCredentials(),
      disbursement: options.disbursement ?? generateCredentials(),
    },
    currencies: options.currencies,
    reasonFormat: options.reasonFormat ?? 'string',
    providerCallbackHost: options.providerCallbackHost,
    availableBalance: options.availableBalance ?? '1000',
  }
}
