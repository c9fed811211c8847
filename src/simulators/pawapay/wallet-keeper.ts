import { randomUUID } from 'node:crypto'
import type { BookKeeper } from '../book-control.ts'
import type { Exchange } from '../http-io.ts'
import type { LineDirection } from '../wallet-book.ts'
import { sendJson } from './http-io.ts'
import { countryByIso3, providers } from './providers.ts'
import { forceStatus } from './settlement.ts'
import type { SimulatorState } from './state.ts'
import type { WalletLine } from './wallets.ts'

const timestamp = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z')

/** The pawaPay side of the shared book control paths: wallets by `BEN/XOF`, lines as statement rows. */
export function walletKeeper(state: SimulatorState): BookKeeper<WalletLine> {
  /**
   * A COMPLETED deposit (in) or payout (out) of the wallet, by the provider the request names or
   * the country's first for that currency, under a client reference when given.
   */
  const line = (
    account: string,
    direction: LineDirection,
    amountUnits: bigint,
    atMs: number,
    request: Readonly<Record<string, unknown>>,
    clientReferenceId?: string,
  ) => {
    const [country = '', currency = ''] = account.split('/')
    const provider =
      typeof request.provider === 'string'
        ? request.provider
        : (providers.find((each) => each.country === country && currency in each.currencies)?.code ?? '')
    const id = randomUUID()
    return {
      lineId: id,
      paymentId: id,
      atMs,
      direction,
      amountUnits,
      feeUnits: 0n,
      detail: {
        type: direction === 'in' ? 'DEPOSIT' : 'PAYOUT',
        transactionId: id,
        msisdn: `${countryByIso3(country)?.prefix ?? ''}97000000`,
        provider,
        country,
        clientReferenceId,
        providerTransactionId: String(1_000_000_000 + Math.floor(atMs % 1_000_000_000)),
        created: timestamp(atMs),
        status: 'COMPLETED' as const,
      },
    }
  }
  return {
    accounts: () => state.wallets,
    accountOf: (paymentId) => [...state.wallets.values()].find((book) => book.linesOf(paymentId).length > 0),
    strangerLine: (account, amountUnits, direction, atMs, request) =>
      line(account, direction, amountUnits, atMs, request),
    seededLine: (account, index, atMs, request) =>
      line(
        account,
        index % 2 === 0 ? 'in' : 'out',
        BigInt(100 + (index % 900)) * 10_000n,
        atMs,
        request,
        `seed${index}.main`,
      ),
    // pawaPay lists a payment by the id the merchant gave it: listed twice, it shows that id twice.
    copyLineId: (copied) => copied.lineId,
    succeedSilently: (paymentId) => {
      const [payment] = state.ledger.withId(paymentId)
      if (payment !== undefined) forceStatus(state, payment, { status: 'COMPLETED', callback: false })
      return payment !== undefined
    },
    sendJson: ({ response }: Exchange, status, body) => sendJson(response, status, body),
  }
}
