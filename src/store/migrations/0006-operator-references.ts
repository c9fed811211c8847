import type { Kysely } from 'kysely'
import type { StoreDialect } from '../dialect.ts'

/**
 * The reference each live side is known by to its operator (MTN's X-Reference-Id, pawaPay's
 * depositId...), indexed: some operators' notifications name only that (pawaPay's callbacks
 * carry no clientReferenceId), and one reference is one side, for ever.
 */
export async function up(db: Kysely<any>, dialect: StoreDialect): Promise<void> {
  await db.schema
    .createTable('operator_references')
    .addColumn('reference', 'text', (column) => column.primaryKey())
    .addColumn('operation_id', dialect.bigintType, (column) => column.notNull().references('operations.id'))
    .addColumn('role', 'text', (column) => column.notNull())
    .execute()
  // Existing live sides (written before this table) are found again by their stored reference.
  const rows = await db.selectFrom('operations').select(['id', 'sides']).where('mode', '=', 'live').execute()
  for (const row of rows) {
    const sides = JSON.parse(row.sides) as { role: string; operatorReference?: string }[]
    for (const side of sides)
      if (side.operatorReference)
        await db
          .insertInto('operator_references')
          .values({ reference: side.operatorReference, operation_id: row.id, role: side.role })
          .execute()
  }
}
