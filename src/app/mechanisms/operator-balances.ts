import type { OperatorBalance } from '../../domain/operator-lines.ts'
import type { OperatorReading } from '../../providers/provider.ts'
import type { LiveConnection } from '../../providers/registry.ts'
import { createTtlCache } from './ttl-cache.ts'

/** A connection's balances as its operator last gave them, and when they were read. */
export interface BalanceReading {
  readonly reading: OperatorReading<OperatorBalance[]>
  readonly readAtUs: number
}

/**
 * Each live connection's balances, read from its operator at most once a minute on this instance
 * (an operator's balance API is rate limited, and a console page or a scrape should not call it on
 * every view). Concurrent reads of one connection share one call; a refusal or no answer is kept
 * for the minute too, so a failing operator is not asked again at each view. The call runs outside
 * any transaction: nothing here touches the store. `onRead` hears every fresh reading (the
 * low-balance gauges).
 */
export class OperatorBalances {
  static readonly freshForMs = 60_000
  readonly #cache = createTtlCache<BalanceReading>(OperatorBalances.freshForMs, () => true, 1_000)
  readonly #nowUs: () => number
  readonly #onRead: (connection: LiveConnection, reading: BalanceReading) => void

  constructor(
    nowUs: () => number,
    onRead: (connection: LiveConnection, reading: BalanceReading) => void = () => {},
  ) {
    this.#nowUs = nowUs
    this.#onRead = onRead
  }

  /** The connection's balances, or undefined for an operator that publishes no balance API. */
  read(connection: LiveConnection): Promise<BalanceReading> | undefined {
    const balance = connection.adapter.balance?.bind(connection.adapter)
    if (!balance) return undefined
    return this.#cache.read(connection.id, async () => {
      const reading = await askOperator(balance)
      const read = { reading, readAtUs: this.#nowUs() }
      this.#onRead(connection, read)
      return read
    })
  }
}

/** An adapter's reading, with a throw (a bug, a socket torn down oddly) turned into a reason. */
async function askOperator(
  balance: () => Promise<OperatorReading<OperatorBalance[]>>,
): Promise<OperatorReading<OperatorBalance[]>> {
  try {
    return await balance()
  } catch {
    // The error's text is not shown: it could quote a request that carried a credential.
    return { ok: false, reason: 'The balance could not be read.' }
  }
}
