import { type Compilable, CompiledQuery, type QueryResult } from 'kysely'
import { markWriteOnly } from '../write-only.ts'
import type { Executor } from './executor.ts'

/** Where a value goes in a template: the argument it stands for, and within a list, the row and field. */
class StandIn {
  constructor(readonly path: readonly [string] | readonly [string, number, string]) {}
}

/** What a compiled template's parameter is: an argument (by its path), or a value fixed at build time. */
type ParameterSource = { path: StandIn['path'] } | { fixed: unknown }

interface CompiledTemplate {
  sql: string
  parameters: ParameterSource[]
}

/**
 * A statement built and compiled by Kysely once per dialect and shape, then run with new values.
 * Kysely builds a tree of frozen nodes and walks it to SQL on every call: over a collect's dozen
 * statements that was about a sixth of its CPU. `build` receives stand-ins for its arguments and
 * may use them only as values (compared, inserted, set); an argument that is a list of rows stands
 * for rows of stand-ins (multi-row inserts), and each length of list is its own template. Anything
 * else that changes the SQL text (a column present or not) must be fixed in `build`. Every call
 * passes the same names, and rows with the same fields; an undefined value is bound as null.
 */
export function statementTemplate<Arguments extends Record<string, unknown>, Row>(
  build: (db: Executor, values: Arguments) => Compilable<Row>,
  /** The table it writes, when its caller reads nothing of its result: it may then be sent later (write-only.ts). */
  options: { writeOnly?: string } = {},
): (db: Executor, values: Arguments) => Promise<QueryResult<Row>> {
  // Keyed by the dialect's adapter class (SQLite and PostgreSQL write different SQL), then shape.
  const compiledFor = new Map<unknown, Map<string, CompiledTemplate>>()
  return (db, values) => {
    const dialectKey = db.getExecutor().adapter.constructor
    let ofDialect = compiledFor.get(dialectKey)
    if (!ofDialect) {
      ofDialect = new Map()
      compiledFor.set(dialectKey, ofDialect)
    }
    const shape = shapeOf(values)
    let template = ofDialect.get(shape)
    if (!template) {
      template = compileWithStandIns(db, build, values)
      ofDialect.set(shape, template)
    }
    const parameters = template.parameters.map((source) =>
      'fixed' in source ? source.fixed : (valueAt(values, source.path) ?? null),
    )
    const query = CompiledQuery.raw(template.sql, parameters)
    if (options.writeOnly) markWriteOnly(query, options.writeOnly)
    return db.executeQuery<Row>(query)
  }
}

/** The lengths of the arguments that are lists: what else changes the SQL text of one template. */
function shapeOf(values: Record<string, unknown>): string {
  let shape = ''
  for (const name in values) {
    const value = values[name]
    if (Array.isArray(value)) shape += `${name}:${value.length};`
  }
  return shape
}

function valueAt(values: Record<string, unknown>, path: StandIn['path']): unknown {
  const value = values[path[0]]
  return path.length === 1 ? value : (value as Record<string, unknown>[])[path[1]]![path[2]]
}

/** The call's own arguments name them all, and the fields of each row of a list. */
function compileWithStandIns<Arguments extends Record<string, unknown>>(
  db: Executor,
  build: (db: Executor, values: Arguments) => Compilable<unknown>,
  values: Arguments,
): CompiledTemplate {
  const standIns = Object.fromEntries(
    Object.entries(values).map(([name, value]) => [
      name,
      Array.isArray(value)
        ? value.map((row: Record<string, unknown>, index) =>
            Object.fromEntries(Object.keys(row).map((field) => [field, new StandIn([name, index, field])])),
          )
        : new StandIn([name]),
    ]),
  ) as Arguments
  const compiled = build(db, standIns).compile()
  return {
    sql: compiled.sql,
    parameters: compiled.parameters.map((value) =>
      value instanceof StandIn ? { path: value.path } : { fixed: value },
    ),
  }
}
