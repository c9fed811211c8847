/**
 * A merchant's servers under trouble, as a fault test needs them: several clients initiating
 * operations back to back, each retrying an answer it cannot trust (a 503, a dropped connection)
 * with the same merchantReference and body until it gets a final one, and reading back at once
 * every operation acknowledged with a 200. Whatever breaks a promise of the contract is recorded
 * as a violation; the test then asserts there are none.
 */

export interface LoadRequest {
  /** e.g. /api/v1/collect */
  path: string
  body: Record<string, unknown>
}

export interface LoadOptions {
  url: string
  keys: { apiKey: string; secretKey: string }
  clients: number
  /** The n-th request of a client. */
  requestFor(client: number, n: number): LoadRequest
  /** Clients start no new chain once this says stop; chains in progress finish. */
  running(): boolean
  /** A request that has not answered after this long is a violation (a hang). */
  hangMs?: number
}

export interface LoadReport {
  /** merchantReference -> token, for every initiation acknowledged with a 200. */
  acknowledged: Map<string, string>
  /** How many answers of each status, retries included. */
  statuses: Map<number | 'network', number>
  /** How long each 503 took to arrive. */
  unavailableMs: number[]
  /** Wall-clock times at which a 200 arrived (ms), to measure recovery. */
  successAtMs: number[]
  violations: string[]
}

const retryPauseMs = 100

export async function runRetriedLoad(options: LoadOptions): Promise<LoadReport> {
  const report: LoadReport = {
    acknowledged: new Map(),
    statuses: new Map(),
    unavailableMs: [],
    successAtMs: [],
    violations: [],
  }
  const headers = {
    'api-key': options.keys.apiKey,
    'secret-key': options.keys.secretKey,
    'content-type': 'application/json',
  }
  const client = async (index: number) => {
    for (let n = 0; options.running(); n += 1) {
      await settleChain(options, headers, options.requestFor(index, n), report)
    }
  }
  await Promise.all(Array.from({ length: options.clients }, (_, index) => client(index)))
  return report
}

type Answer = { status: number | 'network'; body: any; elapsedMs: number }

async function send(url: string, init: RequestInit, hangMs: number): Promise<Answer> {
  const started = performance.now()
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(hangMs) })
    const text = await response.text()
    let body: any
    try {
      body = JSON.parse(text)
    } catch {
      body = text
    }
    return { status: response.status, body, elapsedMs: performance.now() - started }
  } catch (error) {
    const hung = (error as Error).name === 'TimeoutError'
    return { status: hung ? 0 : 'network', body: String(error), elapsedMs: performance.now() - started }
  }
}

function count(report: LoadReport, status: number | 'network') {
  report.statuses.set(status, (report.statuses.get(status) ?? 0) + 1)
}

/** One initiation retried until a final answer; a 200 is read back at once. */
async function settleChain(
  options: LoadOptions,
  headers: Record<string, string>,
  request: LoadRequest,
  report: LoadReport,
): Promise<void> {
  const hangMs = options.hangMs ?? 30_000
  const reference = String(request.body.merchantReference)
  for (;;) {
    const answer = await send(
      `${options.url}${request.path}`,
      { method: 'POST', headers, body: JSON.stringify(request.body) },
      hangMs,
    )
    count(report, answer.status)
    if (answer.status === 0) report.violations.push(`${reference}: no answer within ${hangMs} ms`)
    if (answer.status === 503) report.unavailableMs.push(answer.elapsedMs)
    if (typeof answer.status === 'number' && answer.status >= 500 && answer.status !== 503)
      report.violations.push(`${reference}: ${answer.status} ${JSON.stringify(answer.body)}`)
    if (answer.status === 200) {
      const token = (Object.values(answer.body.data)[0] as { token: string }).token
      report.acknowledged.set(reference, token)
      report.successAtMs.push(Date.now())
      await readBack(options, headers, request.path, reference, token, report)
      return
    }
    if (answer.status === 409 || answer.status === 422) {
      if (answer.body?.code !== 'insufficient_balance')
        report.violations.push(`${reference}: ${answer.status} ${JSON.stringify(answer.body)}`)
      return
    }
    await new Promise((resolve) => setTimeout(resolve, retryPauseMs))
  }
}

/** A token answered with a 200 must be readable at once: a 404 means the 200 was not committed. */
async function readBack(
  options: LoadOptions,
  headers: Record<string, string>,
  path: string,
  reference: string,
  token: string,
  report: LoadReport,
): Promise<void> {
  for (;;) {
    const answer = await send(`${options.url}${path}/${token}`, { headers }, options.hangMs ?? 30_000)
    if (answer.status === 200) return
    if (answer.status === 404) {
      report.violations.push(`${reference}: acknowledged as ${token}, then GET answered 404`)
      return
    }
    if (answer.status !== 503 && answer.status !== 'network') {
      report.violations.push(`${reference}: GET ${token} answered ${answer.status}`)
      return
    }
    await new Promise((resolve) => setTimeout(resolve, retryPauseMs))
  }
}
