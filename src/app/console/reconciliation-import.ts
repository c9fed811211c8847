import { ApiError } from '../../errors.ts'
import type { AppContext } from '../context.ts'
import { importExport, parseMapping } from '../reconciliation/imports.ts'
import { sha256Of } from '../reconciliation/operator-reading.ts'
import { type PlatformActor, recordPlatformChange } from './platform-audit.ts'

/**
 * A portal export imported by `sika reconcile import` or uploaded in the console (CONTRACT.md,
 * Reconciliation), written to the platform audit log with who imported it. A file that cannot be
 * imported changes nothing.
 */

/** Why an upload was refused; nothing was kept. */
export type ImportRefusal =
  /** No live connection has that id, or its operator gives its statement through its API. */
  | { refused: 'import_connection' }
  /** No file was sent, or an empty one. */
  | { refused: 'import_empty' }
  /** The column mapping is not field=column pairs of the import's fields (`message` says which, in English). */
  | { refused: 'import_columns'; message: string }
  /** No row of the file gave a line: it needs these columns (reference, amount, date); each row's problem. */
  | { refused: 'import_unreadable'; columns: string[]; problems: string[] }

export interface ImportOutcome {
  connection: string
  days: string[]
  lines: number
  /** Rows that could not be read, skipped, each with its problem. */
  problems: string[]
}

/** Whether a connection takes portal exports: its operator publishes no statement API (MTN MoMo, Orange Money). */
export const takesExports = (context: AppContext, connectionId: string): boolean => {
  const connection = context.providers.liveConnection(connectionId)
  return connection !== undefined && connection.adapter.statement === undefined
}

export async function importPortalExport(
  context: AppContext,
  actor: PlatformActor,
  connectionId: string,
  bytes: Uint8Array,
  columns: string,
): Promise<ImportOutcome | ImportRefusal> {
  if (!takesExports(context, connectionId)) return { refused: 'import_connection' }
  if (bytes.length === 0) return { refused: 'import_empty' }
  let mapping: ReturnType<typeof parseMapping>
  try {
    mapping = parseMapping(columns)
  } catch (error) {
    if (error instanceof ApiError) return { refused: 'import_columns', message: error.message }
    throw error
  }
  const imported = await importExport(context, connectionId, bytes, columns, (tx, kept) =>
    recordPlatformChange(
      context,
      actor,
      {
        action: 'reconciliation.import',
        target: connectionId,
        after: {
          sha256: sha256Of(bytes),
          bytes: bytes.length,
          days: kept.days,
          lines: kept.lines,
          skipped: kept.problems.length,
        },
      },
      tx,
    ),
  )
  // No line, no day: nothing was kept, nor audited.
  if (imported.lines === 0)
    return {
      refused: 'import_unreadable',
      columns: [mapping.reference, mapping.amount, mapping.date],
      problems: imported.problems,
    }
  return {
    connection: connectionId,
    days: imported.days,
    lines: imported.lines,
    problems: imported.problems,
  }
}
