import pg from 'pg'
import { type RowOf, rowBuilderFor } from './row-builders.ts'

/**
 * Rows of PostgreSQL results, built the way V8 keeps objects fast.
 *
 * pg 8 makes each row by spreading an object it builds, per result, from a null-prototype object
 * of every column (brianc/node-postgres#3042, #3055): past about sixteen columns V8 keeps such
 * objects as dictionaries, slow to build and slow to read, and an operation has 30 columns. So
 * statements are sent in pg's array mode, and each row is built by the builder for its list of
 * columns (row-builders.ts, as for SQLite), kept here once per list.
 */
const builders = new Map<string, RowOf>()
const maximumBuilders = 500

export function rowBuilderOf(fields: readonly { name: string }[]): RowOf {
  let key = ''
  for (const field of fields) key += `${field.name}\u0000`
  let builder = builders.get(key)
  if (!builder) {
    builder = rowBuilderFor(fields.map((field) => field.name))
    if (builders.size >= maximumBuilders) builders.delete(builders.keys().next().value as string)
    builders.set(key, builder)
  }
  return builder
}

interface FieldDescription {
  name: string
  dataTypeID: number
  format?: string
}

interface ResultInternals {
  rowAsArray: boolean
  fields: FieldDescription[]
  _parsers: unknown[] | undefined
  _types: { getTypeParser(oid: number, format: string): unknown } | undefined
  addFields(descriptions: FieldDescription[]): void
}

/**
 * An array-mode result needs only its columns' parsers; pg still builds its per-result row object
 * (the slow part above) for it. That step is skipped here, for array mode only, when pg's Result
 * is the shape this was written against (pg 8.11 to 8.23); otherwise pg is left as it is.
 */
function skipPrebuiltRowsInArrayMode(): void {
  const prototype = (pg as unknown as { Result?: { prototype: ResultInternals } }).Result?.prototype
  const original = prototype?.addFields
  if (!prototype || !original || !String(original).includes('_prebuiltEmptyResultObject')) return
  prototype.addFields = function addFields(this: ResultInternals, descriptions: FieldDescription[]) {
    if (!this.rowAsArray) return original.call(this, descriptions)
    const types = this._types ?? (pg.types as NonNullable<ResultInternals['_types']>)
    this.fields = descriptions
    this._parsers = descriptions.map((description) =>
      types.getTypeParser(description.dataTypeID, description.format || 'text'),
    )
  }
}

skipPrebuiltRowsInArrayMode()
