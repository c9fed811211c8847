import type { OperatorBalance, OperatorLine, UnreadableLine } from '../../domain/operator-lines.ts'
import type { OperatorDocument } from '../operator-http.ts'
import { accountsOf, byTime, uniqueLineIds, withinWindow } from '../operator-statements.ts'
import type { OperatorReading, OperatorStatement, StatementFile, StatementRequest } from '../provider.ts'
import { balanceOfWallet, daysOf, lineOfItem, pageOf, walletAccount } from './balance-wire.ts'
import type { WaveCall, WaveDocumentRead } from './client.ts'

/** Longest a statement is read for by default: Wave answers each page at once. */
const defaultWaitMs = 10 * 60_000

const failed = (reason: string) => ({ ok: false, reason }) as const

const codeOf = (body: unknown) => {
  const code = typeof body === 'object' && body !== null ? (body as { code?: unknown }).code : undefined
  return typeof code === 'string' ? ` ${code}` : ''
}

/** GET /v1/balance: the one wallet the API key is bound to. */
export async function readWaveBalance(call: WaveCall): Promise<OperatorReading<OperatorBalance[]>> {
  try {
    const answer = await call('GET', '/v1/balance')
    if (answer.status !== 200)
      return failed(`Wave answered HTTP ${answer.status}${codeOf(answer.body)} to GET /v1/balance.`)
    const balance = balanceOfWallet(answer.body)
    return typeof balance === 'string' ? failed(balance) : { ok: true, value: [balance] }
  } catch {
    return failed('Wave gave no answer to GET /v1/balance.')
  }
}

const parsed = (document: OperatorDocument): unknown => {
  try {
    return JSON.parse(document.bytes.toString('utf8'))
  } catch {
    return undefined
  }
}

interface DayRead {
  readonly lines: OperatorLine[]
  readonly unreadable: UnreadableLine[]
  readonly files: StatementFile[]
}

/**
 * One day's transactions, page after page (`after` = the last page's `end_cursor`, while
 * `has_next_page`), each page kept as received. A cursor Wave gives twice would loop: it fails.
 */
async function readDay(
  read: WaveDocumentRead,
  day: string,
  request: StatementRequest,
  deadlineMs: number,
): Promise<DayRead | string> {
  const day_: DayRead = { lines: [], unreadable: [], files: [] }
  const seen = new Set<string>()
  for (let cursor: string | undefined, page = 1; ; page++) {
    if (request.signal?.aborted) return `The read of Wave's transactions of ${day} was stopped.`
    if (Date.now() > deadlineMs)
      return `Wave's transactions of ${day} were not read within ${Math.round((request.waitMs ?? defaultWaitMs) / 1000)} s.`
    const path = `/v1/transactions?date=${day}${cursor === undefined ? '' : `&after=${encodeURIComponent(cursor)}`}`
    let document: OperatorDocument
    try {
      document = await read(path)
    } catch {
      return `Wave gave no answer to GET ${path}.`
    }
    const body = parsed(document)
    if (document.status !== 200) return `Wave answered HTTP ${document.status}${codeOf(body)} to GET ${path}.`
    const transactions = pageOf(body)
    if (transactions === undefined) return `Wave's answer to GET ${path} is no page of transactions.`
    day_.files.push({
      name: `transactions-${day}-page-${page}.json`,
      contentType: document.contentType,
      bytes: document.bytes,
    })
    for (const item of transactions.items) {
      const line = lineOfItem(item)
      if (typeof line === 'string') day_.unreadable.push({ account: walletAccount, raw: item, problem: line })
      else day_.lines.push(line)
    }
    cursor = transactions.nextCursor
    if (cursor === undefined) return day_
    if (seen.has(cursor)) return `Wave gave the same cursor twice while paging through ${day}.`
    seen.add(cursor)
  }
}

/**
 * The wallet's transactions of the window: every UTC day it touches, read whole, the lines of the
 * window kept. The wallet's opening and closing balances come from each transaction's `balance`.
 */
export async function readWaveStatement(
  read: WaveDocumentRead,
  request: StatementRequest,
): Promise<OperatorReading<OperatorStatement>> {
  const { window } = request
  const deadlineMs = Date.now() + (request.waitMs ?? defaultWaitMs)
  const lines: OperatorLine[] = []
  const unreadableLines: UnreadableLine[] = []
  const files: StatementFile[] = []
  for (const day of daysOf(window.startAtUs, window.endAtUs)) {
    const dayRead = await readDay(read, day, request, deadlineMs)
    if (typeof dayRead === 'string') return failed(dayRead)
    lines.push(...dayRead.lines.filter((line) => withinWindow(window, line.atUs)))
    unreadableLines.push(...dayRead.unreadable)
    files.push(...dayRead.files)
  }
  const ordered = byTime(lines)
  return {
    ok: true,
    value: { window, accounts: accountsOf(ordered), lines: uniqueLineIds(ordered), unreadableLines, files },
  }
}
