import { createQueryId, PostgresQueryCompiler, type RootOperationNode } from 'kysely'

/**
 * PostgreSQL's compiler with its `$n` placeholders numbered from `offset + 1`: a statement compiled
 * so can follow others' parameters in one combined statement (held writes as WITH items,
 * postgres-driver.ts). Its parameters come out in the same order at every offset.
 */
class NumberedFromCompiler extends PostgresQueryCompiler {
  constructor(private readonly offset: number) {
    super()
  }

  protected override getCurrentParameterPlaceholder(): string {
    return `$${this.numParameters + this.offset}`
  }
}

// Keyed by the node, which a statement template builds once per dialect and shape.
const compiledAt = new WeakMap<RootOperationNode, Map<number, string>>()

/** The statement's SQL with its first parameter numbered `offset + 1`, compiled once per node and offset. */
export function sqlNumberedFrom(node: RootOperationNode, offset: number): string {
  let ofNode = compiledAt.get(node)
  if (!ofNode) {
    ofNode = new Map()
    compiledAt.set(node, ofNode)
  }
  let text = ofNode.get(offset)
  if (text === undefined) {
    text = new NumberedFromCompiler(offset).compileQuery(node, createQueryId()).sql
    ofNode.set(offset, text)
  }
  return text
}
