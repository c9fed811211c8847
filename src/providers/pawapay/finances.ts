import { setTimeout as sleep } from 'node:timers/promises'
import { gunzipSync } from 'node:zlib'
import type { OperatorBalance, OperatorLine, UnreadableLine } from '../../domain/operator-lines.ts'
import { csvRecords } from '../csv-records.ts'
import { type OperatorDocument, readFromOperator } from '../operator-http.ts'
import { accountsOf, byTime, uniqueLineIds, withinWindow } from '../operator-statements.ts'
import type { OperatorReading, OperatorStatement, StatementFile, StatementRequest } from '../provider.ts'
import type { PawapayCall } from './client.ts'
import {
  columnsOf,
  failureOf,
  largestStatementRangeUs,
  lineOfRow,
  type PawapayWallet,
  statementBody,
  statementStateOf,
  walletsOf,
} from './finance-wire.ts'

/** What the finances need of the adapter: its HTTP, its providers, and where statement callbacks go. */
export interface PawapayFinances {
  readonly call: PawapayCall
  readonly providers: Readonly<Record<string, string>>
  /** pawaPay asks every statement for a callback URL: Sika's notifications route answers it. */
  readonly callbackUrl: string
  /** Ask for the statement's file gzipped (smaller to fetch); either is read. */
  readonly compressed: boolean
}

/** A statement is waited for this long by default: pawaPay says large ranges can take minutes. */
const defaultWaitMs = 10 * 60_000
/** The first status check comes this soon; each next one waits half as long again, up to the last. */
const firstCheckMs = 200
const slowestCheckMs = 10_000
/** A file's download is bounded as a whole too: a busy month's statement is a large file. */
const downloadTimeoutMs = 60_000

const failed = (reason: string) => ({ ok: false, reason }) as const

/** The connection's wallets, from GET /v2/wallet-balances, or why they cannot be read. */
async function wallets(finances: PawapayFinances) {
  let answer: Awaited<ReturnType<PawapayCall>>
  try {
    answer = await finances.call('GET', '/v2/wallet-balances')
  } catch {
    return 'pawaPay gave no answer to GET /v2/wallet-balances.'
  }
  if (answer.status !== 200)
    return `pawaPay answered HTTP ${answer.status}${failureOf(answer.body)} to GET /v2/wallet-balances.`
  const found = walletsOf(answer.body, finances.providers)
  if (found.length === 0) return "pawaPay lists no wallet in the currency of the connection's countries."
  return found
}

/** GET /v2/wallet-balances: the wallet of each of the connection's countries. */
export async function readPawapayBalances(
  finances: PawapayFinances,
): Promise<OperatorReading<OperatorBalance[]>> {
  const found = await wallets(finances)
  if (typeof found === 'string') return failed(found)
  const unreadable = found.find((entry) => entry.balance === undefined)
  if (unreadable)
    return failed(
      `pawaPay's balance of ${unreadable.wallet.account} is no amount of ${unreadable.wallet.currency}.`,
    )
  return { ok: true, value: found.map((entry) => entry.balance!) }
}

/** Waits for a statement to end, checking its status with a growing pause, until the deadline. */
async function completed(
  finances: PawapayFinances,
  wallet: PawapayWallet,
  statementId: string,
  deadlineMs: number,
  request: StatementRequest,
) {
  const path = `/v2/statements/${encodeURIComponent(statementId)}`
  let last = 'PROCESSING'
  for (let pauseMs = firstCheckMs; ; pauseMs = Math.min(slowestCheckMs, pauseMs * 1.5)) {
    const waitMs = Math.min(pauseMs, deadlineMs - Date.now())
    if (waitMs <= 0)
      return `pawaPay's statement ${statementId} of ${wallet.account} did not complete within ${Math.round((request.waitMs ?? defaultWaitMs) / 1000)} s (still ${last}).`
    try {
      await sleep(waitMs, undefined, { signal: request.signal })
    } catch {
      return `The wait for pawaPay's statement ${statementId} of ${wallet.account} was stopped.`
    }
    const answer = await finances.call('GET', path).catch(() => undefined)
    const state = answer?.status === 200 ? statementStateOf(answer.body) : undefined
    if (state === undefined) continue
    last = state.status
    if (state.status === 'COMPLETED' && state.downloadUrl) return { downloadUrl: state.downloadUrl }
    if (state.status === 'FAILED')
      return `pawaPay's statement ${statementId} of ${wallet.account} FAILED${failureOf(answer?.body && (answer.body as { data?: unknown }).data)}.`
  }
}

/** The file's rows: gunzipped when it is gzip (its magic bytes, whatever it was asked as), then CSV by its header. */
function rowsOf(document: OperatorDocument): Record<string, string>[] | string {
  try {
    const gzip = document.bytes[0] === 0x1f && document.bytes[1] === 0x8b
    const text = (gzip ? gunzipSync(document.bytes) : document.bytes).toString('utf8')
    return csvRecords(text)
  } catch (error) {
    return error instanceof Error ? error.message : String(error)
  }
}

interface WalletRead {
  readonly lines: OperatorLine[]
  readonly excluded: Set<OperatorLine>
  readonly unreadable: UnreadableLine[]
  readonly file: StatementFile
}

/** One wallet's statement: asked, waited for, downloaded (no API token: the URL is pre-signed) and read. */
async function walletStatement(
  finances: PawapayFinances,
  wallet: PawapayWallet,
  request: StatementRequest,
  deadlineMs: number,
): Promise<WalletRead | string> {
  const body = statementBody(wallet, request.window, finances.callbackUrl, finances.compressed)
  const answer = await finances.call('POST', '/v2/statements', body).catch(() => undefined)
  if (answer === undefined) return 'pawaPay gave no answer to POST /v2/statements.'
  const accepted = answer.body as { statementId?: unknown; status?: unknown } | undefined
  if (answer.status !== 200 || accepted?.status !== 'ACCEPTED' || typeof accepted.statementId !== 'string')
    return `pawaPay refused the statement of ${wallet.account} (HTTP ${answer.status}${failureOf(answer.body)}).`
  const ready = await completed(finances, wallet, accepted.statementId, deadlineMs, request)
  if (typeof ready === 'string') return ready
  const document = await readFromOperator(ready.downloadUrl, {}, { totalTimeoutMs: downloadTimeoutMs }).catch(
    () => undefined,
  )
  if (document?.status !== 200)
    return `pawaPay's statement file of ${wallet.account} could not be downloaded (${document ? `HTTP ${document.status}` : 'no answer'}).`
  const rows = rowsOf(document)
  if (typeof rows === 'string')
    return `pawaPay's statement file of ${wallet.account} is no CSV that can be read (${rows}).`
  const columns = columnsOf(Object.keys(rows[0] ?? {}))
  const read: WalletRead = {
    lines: [],
    excluded: new Set(),
    unreadable: [],
    file: {
      name: `${accepted.statementId}.csv${document.bytes[0] === 0x1f ? '.gz' : ''}`,
      contentType: document.contentType,
      bytes: document.bytes,
    },
  }
  for (const row of rows) {
    const result = lineOfRow(row, columns, wallet)
    if ('problem' in result)
      read.unreadable.push({ account: wallet.account, raw: row, problem: result.problem })
    else if (withinWindow(request.window, result.line.atUs)) {
      read.lines.push(result.line)
      if (result.excluded) read.excluded.add(result.line)
    }
  }
  return read
}

/**
 * POST /v2/statements for each wallet of the connection, each waited for (its status checked, or
 * its callback: pawaPay sends it to Sika's notifications route, which acknowledges it), at most
 * `waitMs` in all, then downloaded and read. Lines of the wallet's other providers (another
 * connection's) are left out of the lines and counted in `excludedEffectMinor`.
 */
export async function readPawapayStatement(
  finances: PawapayFinances,
  request: StatementRequest,
): Promise<OperatorReading<OperatorStatement>> {
  const { window } = request
  if (window.endAtUs <= window.startAtUs || window.endAtUs - window.startAtUs > largestStatementRangeUs)
    return failed('A pawaPay statement covers at most 31 days, and its end comes after its start.')
  const deadlineMs = Date.now() + (request.waitMs ?? defaultWaitMs)
  const found = await wallets(finances)
  if (typeof found === 'string') return failed(found)
  const reads = await Promise.all(
    found.map(({ wallet }) => walletStatement(finances, wallet, request, deadlineMs)),
  )
  const problem = reads.find((read) => typeof read === 'string')
  if (problem !== undefined) return failed(problem)
  const walletReads = reads as WalletRead[]
  const all = byTime(walletReads.flatMap((read) => read.lines))
  const excluded = new Set(walletReads.flatMap((read) => [...read.excluded]))
  return {
    ok: true,
    value: {
      window,
      accounts: accountsOf(all, excluded),
      lines: uniqueLineIds(all.filter((line) => !excluded.has(line))),
      unreadableLines: walletReads.flatMap((read) => read.unreadable),
      files: walletReads.map((read) => read.file),
    },
  }
}
