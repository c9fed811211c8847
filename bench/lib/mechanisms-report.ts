import type { MechanismRow, SideFigures } from './mechanisms.ts'

const n = (value: number, digits = 0) =>
  Number.isFinite(value)
    ? value.toLocaleString('en', { maximumFractionDigits: digits, minimumFractionDigits: digits })
    : '-'
const pct = (value: number | undefined) =>
  value !== undefined && Number.isFinite(value) ? `${n(value * 100, 1)} %` : '-'
const mean = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0) / values.length

/** The mechanisms' table: each one's scenario on and off, and what the difference says of it. */
export function mechanismLines(stores: readonly { store: string; mechanisms?: MechanismRow[] }[]): string[] {
  const rows = stores.flatMap((store) => store.mechanisms ?? [])
  if (rows.length === 0) return []
  return [
    '## Mechanisms, on and off',
    'Each on its own scenario, on a fresh instance each time, on then off then off then on (each side the mean of its two); a mechanism earns its place with a gain of at least 10 %, or by a promise its scenario shows. Overload: the mix in an open loop at twice its closed-loop rate on that instance; p99 of the requests admitted, and shares of those sent answered 503, another 5xx, or not at all.',
    '',
    '| store | mechanism | scenario | on | off | on / off |',
    '|---|---|---|---:|---:|---:|',
    ...rows.map((row) => {
      const { mechanism } = row
      const overload = mechanism.scenario === 'mix at 2x its saturating rate'
      const on = overload ? overloadCell(row.on) : rateCell(row.on)
      const off = overload ? overloadCell(row.off) : rateCell(row.off)
      const ratio = overload
        ? `p99 ${n(mean(row.on.map((side) => side.p99Ms)) / mean(row.off.map((side) => side.p99Ms)), 2)}×`
        : `${n(mean(row.on.map((side) => side.perSecond)) / mean(row.off.map((side) => side.perSecond)), 2)}×`
      return `| ${mechanism.store} | ${mechanism.name} | ${mechanism.scenario} | ${on} | ${off} | ${ratio} |`
    }),
    '',
  ]
}

function rateCell(sides: readonly SideFigures[]): string {
  const perSecond = mean(sides.map((side) => side.perSecond))
  const p99 = mean(sides.map((side) => side.p99Ms))
  const loop = mean(sides.map((side) => side.loopDelayP99Ms ?? Number.NaN))
  const each = sides.map((side) => n(side.perSecond)).join(', ')
  const latency = [
    Number.isFinite(p99) ? `p99 ${n(p99, 1)} ms` : '',
    Number.isFinite(loop) ? `loop delay p99 ${n(loop, 1)} ms` : '',
  ].filter(Boolean)
  return `${n(perSecond)}/s${latency.length > 0 ? ` (${latency.join(', ')})` : ''} [${each}]`
}

function overloadCell(sides: readonly SideFigures[]): string {
  return sides
    .map(
      (side) =>
        `p99 ${n(side.p99Ms, 1)} ms, 503 ${pct(side.shed)}, other 5xx ${pct(side.otherErrors)}, unanswered ${pct(side.unanswered)}`,
    )
    .join('; ')
}
