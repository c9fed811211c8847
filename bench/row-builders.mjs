/**
 * Row builders (src/store/row-builders.ts) against an object literal compiled per list of columns
 * (`new Function`, how rows were built before) and against no builder (a field at a time), in one run: build a million rows of an
 * operation's shape, then read every field three times; six rounds each, interleaved, timed in
 * the process's CPU time so that other load on the machine disturbs the figures less.
 *
 *   node --allow-natives-syntax --expose-gc --import tsx bench/row-builders.mjs [extra columns] [leading]
 *
 * `extra columns` adds a join's columns after the operation's; `leading` puts a column before
 * them, so that the generic builder (a template per list) builds the row.
 */
import { operationColumns, rowBuilderFor } from '../src/store/row-builders.ts'

const hasFastProperties = new Function('row', 'return %HasFastProperties(row)')
const haveSameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)')
const extra = Number(process.argv[2] ?? 0)
const leading = process.argv[3] === 'leading'
const names = [
  ...(leading ? ['leading'] : []),
  ...operationColumns,
  ...Array.from({ length: extra }, (_, index) => `extra_${index}`),
]
const cell = (name, row, column) =>
  column % 3 === 0 ? row * 31 + column : column % 3 === 1 ? `${name}-${row}` : row % 2 ? null : `x${row}`
const arrays = Array.from({ length: 1000 }, (_, row) => names.map((name, column) => cell(name, row, column)))
const literal = names.map((name, index) => `${JSON.stringify(name)}: values[${index}]`).join(', ')
const builders = {
  literal: new Function('values', `return { ${literal} }`),
  'row-builders': rowBuilderFor(names),
  // Without a builder: a field at a time from {}, which V8 turns into a dictionary past about
  // sixteen properties.
  'one by one': (values) => {
    const row = {}
    for (let index = 0; index < names.length; index++) row[names[index]] = values[index]
    return row
  },
}
const rowCount = 1_000_000

function readAll(rows) {
  let sum = 0
  for (let pass = 0; pass < 3; pass++)
    for (const r of rows) {
      sum += r.id + r.position + r.initiated_at_us + r.refundable_minor + r.refunded_minor + r.updated_at_us
      sum += r.refund_of_id + r.to_country + r.redirect_url
      for (const value of [r.token, r.merchant_id, r.mode, r.kind, r.status, r.merchant_reference])
        if (value) sum++
      for (const value of [r.request_hash, r.currency, r.channel, r.country, r.phone_number, r.to_channel])
        if (value) sum++
      for (const value of [r.to_phone_number, r.sides, r.urls, r.failure_code, r.failure_message])
        if (value) sum++
      for (const value of [r.completed_at_us, r.refund_of_token, r.metadata]) if (value) sum++
    }
  return sum
}

function cpuMs() {
  const { user, system } = process.cpuUsage()
  return (user + system) / 1000
}

const first = builders.literal(arrays[0])
const second = builders['row-builders'](arrays[0])
console.log(
  `${names.length} columns: fast properties ${hasFastProperties(first)} / ${hasFastProperties(second)},`,
  `same hidden class ${haveSameMap(first, second)}, same row ${JSON.stringify(first) === JSON.stringify(second)}`,
)
const results = { literal: [], 'row-builders': [], 'one by one': [] }
const order = Object.keys(results)
for (let round = 0; round < 6; round++)
  for (const which of round % 2 ? [...order].reverse() : order) {
    const build = builders[which]
    globalThis.gc?.()
    const startedMs = cpuMs()
    const rows = new Array(rowCount)
    for (let index = 0; index < rowCount; index++) rows[index] = build(arrays[index % 1000])
    const builtMs = cpuMs()
    readAll(rows)
    results[which].push({ buildMs: builtMs - startedMs, readMs: cpuMs() - builtMs })
  }
const median = (values) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]
const least = (values) => Math.min(...values)
for (const [which, runs] of Object.entries(results)) {
  const build = runs.map((run) => run.buildMs)
  const read = runs.map((run) => run.readMs)
  console.log(
    `${which.padEnd(12)} build ${median(build).toFixed(0)} ms (least ${least(build).toFixed(0)}),`,
    `read ×3 ${median(read).toFixed(0)} ms (least ${least(read).toFixed(0)}): median of 6, CPU time`,
  )
}
