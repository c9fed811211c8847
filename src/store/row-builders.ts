import type { OperationsTable } from './schema.ts'

/**
 * Row objects from the arrays both drivers read (better-sqlite3's raw mode, pg's array mode),
 * built so that V8 keeps them fast.
 *
 * An object built a field at a time from `{}` by keyed stores (`row[name] = value`, as
 * better-sqlite3 builds its own rows) becomes a dictionary past about sixteen fields: slow to
 * build, and every later read of it is a hash lookup. An operation row has 30 columns and is
 * the one read on every request, so the operations table's columns, in the table's order, have a
 * builder written out as an object literal: one hidden class, every field in the object. Its
 * columns may be followed by others (a join's): those are added to it. Every other list of
 * columns gets a template with one field per column, made once per list, which each row copies
 * before its values are stored into the copy's fields: the copy keeps the template's hidden
 * class, however many columns there are.
 *
 * A later column of the same name wins, as it does in both clients' own rows, and a column named
 * `__proto__` is an own field, never the prototype.
 */
export type RowOf = (values: readonly unknown[]) => Record<string, unknown>

/** The operations table's columns in the order the migrations create them (`select *` returns). */
export const operationColumns = [
  'id',
  'token',
  'merchant_id',
  'mode',
  'kind',
  'position',
  'status',
  'merchant_reference',
  'request_hash',
  'currency',
  'channel',
  'country',
  'phone_number',
  'to_channel',
  'to_country',
  'to_phone_number',
  'sides',
  'urls',
  'redirect_url',
  'failure_code',
  'failure_message',
  'initiated_at_us',
  'completed_at_us',
  'updated_at_us',
  'refund_of_id',
  'refund_of_token',
  'refundable_minor',
  'refunded_minor',
  'metadata',
  'payment_link',
] as const satisfies readonly (keyof OperationsTable)[]

/** The return type names every column of the table, so a column added to the schema and not here fails to compile. */
export function operationRow(values: readonly unknown[]): Record<keyof OperationsTable, unknown> {
  return {
    id: values[0],
    token: values[1],
    merchant_id: values[2],
    mode: values[3],
    kind: values[4],
    position: values[5],
    status: values[6],
    merchant_reference: values[7],
    request_hash: values[8],
    currency: values[9],
    channel: values[10],
    country: values[11],
    phone_number: values[12],
    to_channel: values[13],
    to_country: values[14],
    to_phone_number: values[15],
    sides: values[16],
    urls: values[17],
    redirect_url: values[18],
    failure_code: values[19],
    failure_message: values[20],
    initiated_at_us: values[21],
    completed_at_us: values[22],
    updated_at_us: values[23],
    refund_of_id: values[24],
    refund_of_token: values[25],
    refundable_minor: values[26],
    refunded_minor: values[27],
    metadata: values[28],
    payment_link: values[29],
  }
}

/**
 * Fields added by keyed stores past an object literal's own stay out of the dictionary up to this
 * many; a join that adds more to an operation's columns takes the template instead.
 */
const extraColumnsAtMost = 8

export function rowBuilderFor(names: readonly string[]): RowOf {
  if (startsWithOperationColumns(names)) {
    const extra = names.slice(operationColumns.length)
    if (extra.length === 0) return operationRow
    if (extra.length <= extraColumnsAtMost && !extra.includes('__proto__'))
      return operationRowWith(extra, operationColumns.length)
  }
  return templateRow(names)
}

function startsWithOperationColumns(names: readonly string[]): boolean {
  if (names.length < operationColumns.length) return false
  return operationColumns.every((column, index) => names[index] === column)
}

function operationRowWith(extra: readonly string[], offset: number): RowOf {
  return (values) => {
    const row: Record<string, unknown> = operationRow(values)
    for (let index = 0; index < extra.length; index++) row[extra[index]!] = values[offset + index]
    return row
  }
}

function templateRow(names: readonly string[]): RowOf {
  const columns = [...names]
  // Object.fromEntries defines own data fields (`__proto__` included) on a fast object; a spread
  // copies them the same way, and a store to `__proto__` then meets the own field first.
  const template = Object.fromEntries(columns.map((name) => [name, null]))
  return (values) => {
    const row: Record<string, unknown> = { ...template }
    for (let index = 0; index < columns.length; index++) row[columns[index]!] = values[index]
    return row
  }
}
