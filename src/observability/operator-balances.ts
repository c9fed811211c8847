import { Gauge, type Registry } from 'prom-client'
import { type Currency, toMajorUnits } from '../domain/money.ts'

/** One account's balance as last read, and whether it is below its connection's alert. */
export interface AccountBalanceFigure {
  account: string
  currency: Currency
  balanceMinor: number
  low: boolean
}

/** A live connection as the gauges know it: its id and the currencies it has an alert for. */
export interface AlertedConnection {
  id: string
  lowBalanceAlerts: readonly { currency: Currency }[]
}

/**
 * The operator accounts' gauges, set whenever this instance reads a connection's balances (a
 * console view, or the minute's watch in the workers): the balance of each account, and per
 * connection and currency 1 while an account is below the connection's `lowBalanceAlert`. Every
 * alerted series exists at 0 from the start, so an alert rule sees it rise.
 */
export function operatorBalanceGauges(
  registry: Registry,
  connections: readonly AlertedConnection[],
): (connectionId: string, figures: readonly AccountBalanceFigure[]) => void {
  const balance = new Gauge({
    name: 'sika_operator_balance',
    help: "An operator account's balance as its balance API last gave it, in the currency's major units, by connection id, account and currency.",
    labelNames: ['connection', 'account', 'currency'],
    registers: [registry],
  })
  const low = new Gauge({
    name: 'sika_operator_balance_low',
    help: "1 while an account of the connection in this currency is below the connection's lowBalanceAlert (OPERATORS_FILE), as last read; 0 otherwise.",
    labelNames: ['connection', 'currency'],
    registers: [registry],
  })
  for (const connection of connections)
    for (const alert of connection.lowBalanceAlerts)
      low.set({ connection: connection.id, currency: alert.currency }, 0)
  return (connectionId, figures) => {
    const lowByCurrency = new Map<string, boolean>()
    for (const figure of figures) {
      const labels = { connection: connectionId, account: figure.account, currency: figure.currency }
      balance.set(labels, toMajorUnits(figure.balanceMinor, figure.currency))
      lowByCurrency.set(figure.currency, (lowByCurrency.get(figure.currency) ?? false) || figure.low)
    }
    for (const [currency, isLow] of lowByCurrency)
      low.set({ connection: connectionId, currency }, isLow ? 1 : 0)
  }
}
