import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { decideBreakByHand, runDayByHand } from '../app/console/reconciliation-console.ts'
import { type ImportRefusal, importPortalExport } from '../app/console/reconciliation-import.ts'
import type { AppContext } from '../app/context.ts'
import { listBreaks } from '../app/reconciliation/breaks.ts'
import { breakReport, connectionNamed, type RunReport } from '../app/reconciliation/run.ts'
import { isDay } from '../domain/reconciliation-days.ts'
import { ApiError } from '../errors.ts'
import type { BreakState } from '../store/repositories/reconciliation.ts'
import { CommandError, oneOf, UsageError } from './usage.ts'

type Print = (text: string) => void

const breakStates = ['open', 'auto_resolved', 'resolved', 'ignored'] as const

export type ReconcileArgs =
  | { action: 'run'; connection: string; date: string; json: boolean }
  | { action: 'breaks'; connection?: string; state?: BreakState; json: boolean }
  | { action: 'import'; connection: string; file: string; columns?: string; json: boolean }
  | { action: 'resolve' | 'ignore'; breakId: string; reason: string; by: string; json: boolean }

/**
 * `sika reconcile --connection C --date D [--json]`, `sika reconcile breaks`, `sika reconcile
 * import`, `sika reconcile resolve|ignore BREAK_ID --reason R`: checked whole before the store opens.
 */
export function parseReconcile(action: string | undefined, rest: string[]): ReconcileArgs {
  const sub =
    action === 'breaks' || action === 'import' || action === 'resolve' || action === 'ignore' ? action : 'run'
  const args = sub === 'run' ? (action === undefined ? rest : [action, ...rest]) : rest
  const { values, positionals } = parseArgs({
    args,
    options: {
      connection: { type: 'string' },
      date: { type: 'string' },
      state: { type: 'string' },
      file: { type: 'string' },
      columns: { type: 'string' },
      reason: { type: 'string' },
      by: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
    allowPositionals: sub === 'resolve' || sub === 'ignore',
  })
  const json = values.json
  if (sub === 'breaks')
    return {
      action: 'breaks',
      json,
      ...(values.connection ? { connection: values.connection } : {}),
      ...(values.state ? { state: oneOf('state', values.state, breakStates) } : {}),
    }
  if (sub === 'resolve' || sub === 'ignore') {
    const [breakId] = positionals
    if (!breakId) throw new UsageError('needs BREAK_ID')
    if (!values.reason) throw new UsageError('needs --reason TEXT')
    return { action: sub, breakId, reason: values.reason, by: values.by ?? 'cli', json }
  }
  if (!values.connection) throw new UsageError('needs --connection ID')
  if (sub === 'import') {
    if (!values.file) throw new UsageError('needs --file CSV')
    return {
      action: 'import',
      connection: values.connection,
      file: values.file,
      json,
      ...(values.columns ? { columns: values.columns } : {}),
    }
  }
  if (!values.date) throw new UsageError('needs --date YYYY-MM-DD')
  if (!isDay(values.date)) throw new UsageError(`--date ${values.date} is not a day written YYYY-MM-DD`)
  return { action: 'run', connection: values.connection, date: values.date, json }
}

export async function reconcileCommand(
  context: AppContext,
  args: ReconcileArgs,
  print: Print,
): Promise<void> {
  try {
    await perform(context, args, print)
  } catch (error) {
    if (error instanceof ApiError) throw new CommandError(error.message)
    throw error
  }
}

async function perform(context: AppContext, args: ReconcileArgs, print: Print): Promise<void> {
  switch (args.action) {
    case 'run': {
      const report = await runDayByHand(context, { kind: 'cli' }, args.connection, args.date)
      // The day was checked before the store opened: a refusal is the connection, which
      // connectionNamed refuses with the ids of those connected.
      if ('refused' in report) {
        connectionNamed(context, args.connection)
        throw new CommandError(`No live connection has id ${args.connection}.`)
      }
      print(args.json ? JSON.stringify(report) : runText(report))
      if (report.status === 'failed') throw new CommandError(report.reason ?? 'the run failed')
      return
    }
    case 'breaks': {
      const breaks = await listBreaks(context, {
        ...(args.connection ? { connectionId: args.connection } : {}),
        ...(args.state ? { state: args.state } : {}),
      })
      if (args.json)
        print(
          JSON.stringify(
            breaks.map((each) => ({
              ...breakReport(each),
              connection: each.connectionId,
              date: each.day,
              detail: each.detail,
            })),
          ),
        )
      else
        for (const each of breaks)
          print(
            `${each.id}  ${each.connectionId} ${each.day}  ${each.kind}  ${breakReport(each).amount} ${each.currency}  ${each.state}  ${each.detail}`,
          )
      return
    }
    case 'import':
      return importExport(context, args, print)
    case 'resolve':
    case 'ignore': {
      const decision = args.action === 'resolve' ? 'resolved' : 'ignored'
      const by = { kind: 'cli' as const, label: args.by }
      const decided = await decideBreakByHand(context, by, args.breakId, decision, args.reason)
      if (decided === undefined) throw new CommandError(`No break has id ${args.breakId}.`)
      if ('refused' in decided) throw new CommandError(decisionRefusalText(args.breakId, decided.refused))
      print(
        args.json
          ? JSON.stringify(decided)
          : decided.pendingApproval
            ? `${args.breakId} waits for a second finance member's approval`
            : `${args.breakId} is ${decided.state}`,
      )
    }
  }
}

/** `sika reconcile import`: a portal export kept for its connection's runs, as the console's upload keeps one. */
async function importExport(
  context: AppContext,
  args: Extract<ReconcileArgs, { action: 'import' }>,
  print: Print,
): Promise<void> {
  const bytes = readExport(args.file)
  const imported = await importPortalExport(
    context,
    { kind: 'cli' },
    args.connection,
    bytes,
    args.columns ?? '',
  )
  if ('refused' in imported) throw new CommandError(importRefusalText(context, args, imported))
  if (args.json) {
    print(JSON.stringify({ days: imported.days, lines: imported.lines, problems: imported.problems }))
    return
  }
  for (const problem of imported.problems) print(problem)
  print(
    `imported ${imported.lines} lines for ${args.connection} on ${imported.days.join(', ')}: run sika reconcile --connection ${args.connection} --date <day> for each`,
  )
}

/** Why a break could not be resolved or ignored, in the CLI's words (nothing changed). */
function decisionRefusalText(breakId: string, refused: string): string {
  if (refused === 'approval_waiting')
    return `Break ${breakId} already waits for a second finance member's approval of a decision.`
  if (refused === 'reason_missing') return 'A reason is required to resolve or ignore a break: --reason TEXT.'
  return `Break ${breakId} is no longer open: see sika reconcile breaks.`
}

/** Why an import was refused, in the CLI's words (nothing was kept). */
function importRefusalText(
  context: AppContext,
  args: { connection: string; file: string },
  refusal: ImportRefusal,
): string {
  switch (refusal.refused) {
    case 'import_connection':
      connectionNamed(context, args.connection)
      return `${args.connection} reads its operator's statement API: a portal export is imported only for a connection whose operator publishes none (MTN MoMo, Orange Money).`
    case 'import_empty':
      return `${args.file} is empty: nothing was imported.`
    case 'import_columns':
      return refusal.message
    case 'import_unreadable':
      return [
        `No row of ${args.file} could be read: each needs a reference, an amount and a date (columns ${refusal.columns.join(', ')}). Nothing was imported.`,
        ...refusal.problems.slice(0, 5),
      ].join('\n')
  }
}

const readProblems: Readonly<Record<string, string>> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EISDIR: 'it is a folder, not a file',
}

/** The export's bytes, or a CommandError naming the file and why it cannot be read. */
function readExport(path: string): Uint8Array {
  try {
    return readFileSync(path)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? ''
    const cause = readProblems[code] ?? (error instanceof Error ? error.message : String(error))
    throw new CommandError(`cannot read ${path}: ${cause}`)
  }
}

function runText(report: RunReport): string {
  if (report.status === 'failed') return `${report.connection} ${report.date}: failed: ${report.reason}`
  const lines = [
    `${report.connection} ${report.date}: completed: ${report.matched} of ${report.lines} lines matched (${report.matchedAmount}), ${report.breaks.length} breaks`,
  ]
  for (const each of report.breaks)
    lines.push(
      `  ${each.id}  ${each.kind}  ${each.token ?? each.operatorReference ?? ''}  ${each.amount} ${each.currency}  ${each.state}`,
    )
  return lines.join('\n')
}
