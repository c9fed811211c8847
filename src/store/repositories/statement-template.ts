import {
  type Compilable,
  CompiledQuery,
  type QueryResult,
  type RawBuilder,
  type RootOperationNode,
} from 'kysely'
import { shapeOfOperation } from '../operation-tables.ts'
import { type Carrier, markCarrier, markWriteOnly, type WriteOnly } from '../write-only.ts'
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
  /** Kysely's operation node, from which a driver may compile it again at a parameter offset. */
  node: RootOperationNode
  /** What it declares to a driver that holds writes, made once and given to every execution. */
  writeOnly: WriteOnly | undefined
  carrier: Carrier | undefined
}

/**
 * What a template declares to a driver that holds writes (write-only.ts): `writeOnly`, the table
 * it writes when its caller reads nothing of its result (it may then be sent later); `carries`,
 * every table it reads or writes, when held writes of other tables may travel with it. A template
 * that declares neither is sent after every held write.
 */
export interface TemplateOptions {
  writeOnly?: string
  carries?: { tables: readonly string[] }
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
  build: (db: Executor, values: Arguments) => Compilable<Row> | RawBuilder<Row>,
  options: TemplateOptions = {},
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
      template = compileWithStandIns(db, build, values, options)
      ofDialect.set(shape, template)
    }
    const parameters = template.parameters.map((source) =>
      'fixed' in source ? source.fixed : (valueAt(values, source.path) ?? null),
    )
    const query = CompiledQuery.raw(template.sql, parameters)
    if (template.writeOnly) markWriteOnly(query, template.writeOnly)
    if (template.carrier) markCarrier(query, template.carrier)
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
  build: (db: Executor, values: Arguments) => Compilable<unknown> | RawBuilder<unknown>,
  values: Arguments,
  options: TemplateOptions,
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
  const built = build(db, standIns)
  const compiled = 'isRawBuilder' in built ? built.compile(db) : built.compile()
  const node = compiled.query
  if (options.carries) checkCarrier(node, options.carries.tables)
  return {
    sql: compiled.sql,
    parameters: compiled.parameters.map((value) =>
      value instanceof StandIn ? { path: value.path } : { fixed: value },
    ),
    node,
    writeOnly: options.writeOnly === undefined ? undefined : { table: options.writeOnly, node },
    carrier: options.carries && { tables: options.carries.tables, node },
  }
}

/**
 * A carrier's declaration is checked against what its node shows, once per template: it names no
 * table it did not declare, has no WITH of its own and takes no row lock.
 */
function checkCarrier(node: RootOperationNode, declared: readonly string[]): void {
  const { tables, hasWith, locksRows } = shapeOfOperation(node)
  const undeclared = [...tables].filter((table) => !declared.includes(table))
  if (undeclared.length > 0 || hasWith || locksRows)
    throw new Error(
      `a statement that carries held writes must declare every table it names (${undeclared.join(', ') || 'none missing'}), and have no WITH (${hasWith}) and no row lock (${locksRows})`,
    )
}
