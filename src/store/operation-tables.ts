import type { OperationNode } from 'kysely'

/**
 * What a statement's operation node shows of it: the tables it names, and whether it has a WITH of
 * its own or takes a row lock. Raw fragments (`sql`) are opaque: a table named only in one is not
 * seen, so a statement's declared tables (write-only.ts) remain its author's word.
 */
export interface OperationShape {
  tables: Set<string>
  hasWith: boolean
  locksRows: boolean
}

export function shapeOfOperation(root: OperationNode): OperationShape {
  const shape: OperationShape = { tables: new Set(), hasWith: false, locksRows: false }
  visit(root, shape)
  return shape
}

/** ON CONFLICT's name for the row an INSERT proposed: no table. */
const proposedRow = 'excluded'

const rowLocks = new Set(['ForUpdate', 'ForNoKeyUpdate', 'ForShare', 'ForKeyShare'])

function visit(value: unknown, shape: OperationShape): void {
  if (Array.isArray(value)) {
    for (const item of value) visit(item, shape)
    return
  }
  if (value === null || typeof value !== 'object') return
  const node = value as Record<string, unknown> & { kind?: string }
  if (node.kind === 'TableNode') {
    const { name } = (node.table as { identifier: { name: string } }).identifier
    if (name !== proposedRow) shape.tables.add(name)
  } else if (node.kind === 'WithNode') {
    shape.hasWith = true
  } else if (node.kind === 'SelectModifierNode') {
    if (node.rawModifier !== undefined || rowLocks.has(node.modifier as string)) shape.locksRows = true
  } else if (node.kind === 'ValueNode' || node.kind === 'PrimitiveValueListNode') {
    return
  }
  for (const key in node) if (key !== 'kind') visit(node[key], shape)
}
