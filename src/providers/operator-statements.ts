import type { OperatorLine, StatementAccount, StatementWindow } from '../domain/operator-lines.ts'

/**
 * What every adapter's statement shares once its lines are read: their order, their ids made
 * unique, and each account's opening and closing balances from the operator's running balance.
 */

/** Whether an instant falls in the window [start, end). */
export const withinWindow = (window: StatementWindow, atUs: number) =>
  atUs >= window.startAtUs && atUs < window.endAtUs

/** The lines oldest first, the operator's own order kept between lines of one instant. */
export const byTime = (lines: readonly OperatorLine[]): OperatorLine[] =>
  [...lines].sort((a, b) => a.atUs - b.atUs)

/**
 * A line id the operator gave twice made unique by its rank (`<id>#2`), in the lines' order, so
 * each line keeps one identity however often the window is read.
 */
export function uniqueLineIds(lines: readonly OperatorLine[]): OperatorLine[] {
  const seen = new Map<string, number>()
  return lines.map((line) => {
    const rank = (seen.get(line.lineId) ?? 0) + 1
    seen.set(line.lineId, rank)
    return rank === 1 ? line : { ...line, lineId: `${line.lineId}#${rank}` }
  })
}

/**
 * Each account the lines touch, with its opening and closing balances when every one of its lines
 * carries the balance after it (the opening is the first line's balance before it, the closing the
 * last line's after), and what its `excluded` lines moved: lines of the account that belong to
 * another connection (a shared pawaPay wallet), counted in the balances, left out of the statement.
 * `lines` are ordered, the excluded ones among them.
 */
export function accountsOf(
  lines: readonly OperatorLine[],
  excluded: ReadonlySet<OperatorLine> = new Set(),
): StatementAccount[] {
  const accounts = new Map<string, OperatorLine[]>()
  for (const line of lines) {
    const own = accounts.get(line.account)
    if (own === undefined) accounts.set(line.account, [line])
    else own.push(line)
  }
  return [...accounts].map(([account, own]) => {
    const first = own[0]!
    const last = own.at(-1)!
    const balances = own.every((line) => line.balanceAfterMinor !== undefined)
    const excludedEffectMinor = own
      .filter((line) => excluded.has(line))
      .reduce((sum, line) => sum + line.balanceEffectMinor, 0)
    return {
      account,
      currency: first.currency,
      ...(balances
        ? {
            openingBalanceMinor: first.balanceAfterMinor! - first.balanceEffectMinor,
            closingBalanceMinor: last.balanceAfterMinor!,
          }
        : {}),
      excludedEffectMinor,
    }
  })
}
