import { randomBytes, randomUUID } from 'node:crypto'
import { gzipSync } from 'node:zlib'
import type { FailureReason } from './errors.ts'
import type { SimulatorState } from './state.ts'
import { statementCsv } from './statement-csv.ts'
import { walletKey } from './wallets.ts'

/**
 * Statements (docs.pawapay.io/v2/api-reference/finances; SOURCES.md, "Wallets and statements"): a
 * statement is ACCEPTED, PROCESSING while pawaPay generates it, then COMPLETED with a file to
 * download from `downloadUrl` (pre-signed: no token needed, valid a day), or FAILED. Its callback
 * goes to the request's `callbackUrl` when it ends.
 */

export type StatementStatus = 'PROCESSING' | 'COMPLETED' | 'FAILED'

export interface StatementWallet {
  readonly country: string
  readonly currency: string
  readonly provider?: string
}

/** The generated file, behind its pre-signed URL. */
export interface StatementFile {
  readonly name: string
  readonly contentType: string
  readonly bytes: Buffer
  /** The URL's signature: without it the file is not served. */
  readonly token: string
  readonly expiresAtMs: number
}

export interface Statement {
  readonly id: string
  readonly wallet: StatementWallet
  readonly callbackUrl: string
  /** As the request gave them. */
  readonly startDate: string
  readonly endDate: string
  readonly startMs: number
  readonly endMs: number
  readonly compressed: boolean
  readonly createdAtMs: number
  status: StatementStatus
  endedAtMs: number | undefined
  failureReason: FailureReason | undefined
  file: StatementFile | undefined
}

export class Statements {
  private readonly byId = new Map<string, Statement>()
  /** While true, statements stay PROCESSING until released (a generation that takes for ever). */
  hold = false

  add(statement: Statement): void {
    this.byId.set(statement.id, statement)
  }

  get(id: string): Statement | undefined {
    return this.byId.get(id.toLowerCase())
  }

  all(): Statement[] {
    return [...this.byId.values()]
  }
}

const timestamp = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z')

export function newStatement(
  fields: Omit<Statement, 'id' | 'createdAtMs' | 'status' | 'endedAtMs' | 'failureReason' | 'file'>,
): Statement {
  return {
    ...fields,
    id: randomUUID(),
    createdAtMs: Date.now(),
    status: 'PROCESSING',
    endedAtMs: undefined,
    failureReason: undefined,
    file: undefined,
  }
}

/** What the status check answers in `data`, and what the callback carries. */
export function statementData(state: SimulatorState, statement: Statement): Record<string, unknown> {
  const { file } = statement
  const ended = statement.endedAtMs === undefined ? undefined : timestamp(statement.endedAtMs)
  const fields: Record<string, unknown> = {
    statementId: statement.id,
    status: statement.status,
    wallet: { ...statement.wallet },
    created: timestamp(statement.createdAtMs),
    startDate: statement.startDate,
    endDate: statement.endDate,
    fileSize: file?.bytes.length,
    downloadUrl: file && `${state.url}/_files/statements/${statement.id}/${file.name}?token=${file.token}`,
    downloadUrlExpiresAt: file && timestamp(file.expiresAtMs),
    completedAt: statement.status === 'COMPLETED' ? ended : undefined,
    failedAt: statement.status === 'FAILED' ? ended : undefined,
    failureReason: statement.failureReason && { ...statement.failureReason },
  }
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined))
}

function sendStatementCallback(state: SimulatorState, statement: Statement): void {
  state.callbacks.send(statement.callbackUrl, JSON.stringify(statementData(state, statement)))
}

/** Generates the file from the wallet's books as they stand now: the window's lines, oldest first. */
export function completeStatement(state: SimulatorState, statement: Statement): void {
  if (statement.status !== 'PROCESSING') return
  const { country, currency } = statement.wallet
  const book = state.wallets.get(walletKey(country, currency))
  const csv = statementCsv(currency, book?.listedBetween(statement.startMs, statement.endMs) ?? [])
  const bytes = statement.compressed ? gzipSync(csv) : Buffer.from(csv)
  statement.status = 'COMPLETED'
  statement.endedAtMs = Date.now()
  statement.file = {
    name: `${statement.id}.csv${statement.compressed ? '.gz' : ''}`,
    contentType: statement.compressed ? 'application/gzip' : 'text/csv',
    bytes,
    token: randomBytes(24).toString('base64url'),
    expiresAtMs: statement.endedAtMs + state.config.statementUrlLifetimeMs,
  }
  sendStatementCallback(state, statement)
}

/** A generation that failed: `UNKNOWN_ERROR`, the only code published for it. */
export function failStatement(state: SimulatorState, statement: Statement): void {
  if (statement.status !== 'PROCESSING') return
  statement.status = 'FAILED'
  statement.endedAtMs = Date.now()
  statement.failureReason = {
    failureCode: 'UNKNOWN_ERROR',
    failureMessage: 'Unable to process request due to an unknown problem.',
  }
  sendStatementCallback(state, statement)
}

/** Generation takes `statementDelayMs`, unless statements are held. */
export function generateLater(state: SimulatorState, statement: Statement): void {
  state.timers.after(state.config.statementDelayMs, () => {
    if (!state.statements.hold) completeStatement(state, statement)
  })
}

/** Holds statements PROCESSING, or releases every held one to be generated now. */
export function holdStatements(state: SimulatorState, hold: boolean): number {
  state.statements.hold = hold
  const processing = state.statements.all().filter((statement) => statement.status === 'PROCESSING')
  if (!hold) for (const statement of processing) completeStatement(state, statement)
  return processing.length
}
