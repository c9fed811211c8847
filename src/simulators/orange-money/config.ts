import { randomBytes } from 'node:crypto'
import type { SimulatorOptions } from '../simulator.ts'

export interface OrangeMoneySimulatorOptions extends SimulatorOptions {
  /** The Orange Developer application's client_id (generated when absent). */
  clientId?: string
  /** Its client_secret (generated when absent). */
  clientSecret?: string
  /** The merchant_key every webpayment body must carry (generated when absent). */
  merchantKey?: string
  /**
   * How long a pay_token can be confirmed on the payment page (default 10 minutes: "By default,
   * the token's validity is 10 minutes", Orange's WebPay Dev guide). A later "Confirmer" ends it EXPIRED.
   */
  paymentValidityMs?: number
  /**
   * Orange documents that a payment nobody tries "stays on INITIATED state". True makes such a
   * payment EXPIRED once paymentValidityMs has passed instead, for clients that must cope with
   * either reading. Default false, as documented.
   */
  expireUntriedPayments?: boolean
}

export interface SimulatorConfig {
  readonly host: string
  readonly port: number
  readonly settleDelayMs: number
  readonly hangMs: number
  readonly tokenLifetimeSeconds: number
  readonly clientId: string
  readonly clientSecret: string
  readonly merchantKey: string
  readonly paymentValidityMs: number
  readonly expireUntriedPayments: boolean
}

/** Orange Developer shows the access token lifetime as "about 90 days" (7776000 s) for WebPay. */
export const documentedTokenLifetimeSeconds = 7_776_000

/** The documented validity of a pay_token: 10 minutes. */
export const documentedPaymentValidityMs = 10 * 60 * 1000

/**
 * Shaped as Orange issues them: a 32-character alphanumeric client_id, a 16-character secret, and
 * an 8-hex-digit merchant key (the guide's examples are "a86b2087", "ad8b9717").
 */
function alphanumeric(length: number): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
  return Array.from(randomBytes(length), (byte) => alphabet[byte % alphabet.length]).join('')
}

export function resolveConfig(options: OrangeMoneySimulatorOptions = {}): SimulatorConfig {
  return {
    host: options.host ?? '127.0.0.1',
    port: options.port ?? 0,
    settleDelayMs: options.settleDelayMs ?? 1000,
    hangMs: options.hangMs ?? 15_000,
    tokenLifetimeSeconds: options.tokenLifetimeSeconds ?? documentedTokenLifetimeSeconds,
    clientId: options.clientId ?? alphanumeric(32),
    clientSecret: options.clientSecret ?? alphanumeric(16),
    merchantKey: options.merchantKey ?? randomBytes(4).toString('hex'),
    paymentValidityMs: options.paymentValidityMs ?? documentedPaymentValidityMs,
    expireUntriedPayments: options.expireUntriedPayments ?? false,
  }
}
