import dns from 'node:dns'
import { readFileSync } from 'node:fs'
import { isIP } from 'node:net'

export interface ResolvedAddress {
  readonly address: string
  readonly family: 4 | 6
}

/**
 * What a name resolves to: its addresses, or why none are known: `not-found` (the DNS says it has
 * none), `timed-out` (no answer in time), `failed` (the DNS answered with an error).
 */
export type Resolution =
  | { readonly addresses: readonly ResolvedAddress[] }
  | { readonly unresolved: 'not-found' | 'timed-out' | 'failed' }

export interface HostResolverOptions {
  /** The DNS servers asked; by default the ones the process's `dns` module uses (the system's unless set). */
  servers?: readonly string[]
  /** How long one query waits before it is sent again, once; a name has its answer or its refusal within about three times this. */
  queryTimeoutMs?: number
  /** Read for names the DNS does not know (localhost, the machine's own, a container's host). */
  hostsFile?: string
  /** The most names remembered; past it every answer is forgotten at once. */
  namesKept?: number
}

/** An answer is kept for its records' TTL, between these; a name without one for `unresolvedKeptMs`. */
const keptMsAtLeast = 1_000
const keptMsAtMost = 60_000
const unresolvedKeptMs = 10_000
/** The hosts file is read again when it is older than this. */
const hostsKeptMs = 30_000

/**
 * Resolves the hosts of callback and outcome URLs, for the address check at initiation and the
 * connections of callback delivery alike, off libuv's thread pool: `dns.lookup` (getaddrinfo) runs
 * there, beside argon2 and SQLite's WAL syncs, so a name whose DNS is slow held a thread for its
 * 5–10 s and with it everyone's writes. Here the hosts file is read first (a small local file,
 * read in the event loop), `localhost` names are loopback (RFC 6761), and every other name is
 * asked of the DNS by c-ares (`dns.Resolver`, on the event loop's own sockets), A and AAAA
 * together, each query bounded. Answers are kept for their TTL (at most a minute), and a name
 * that could not be resolved for 10 s, so a slow domain costs its merchant one wait, and the DNS
 * one query, per 10 s; asks for a name already being resolved join that resolution.
 */
export class HostResolver {
  private resolver: dns.promises.Resolver | undefined
  private readonly kept = new Map<string, { resolution: Resolution; untilMs: number }>()
  private readonly resolving = new Map<string, Promise<Resolution>>()
  private hosts: { byName: Map<string, ResolvedAddress[]>; readAtMs: number } | undefined

  constructor(private readonly options: HostResolverOptions = {}) {}

  async resolve(host: string): Promise<Resolution> {
    const name = host.toLowerCase().replace(/\.$/, '')
    const family = isIP(name)
    if (family === 4 || family === 6) return { addresses: [{ address: name, family }] }
    const listed = this.hostsEntry(name)
    if (listed) return { addresses: listed }
    if (name === 'localhost' || name.endsWith('.localhost')) return { addresses: loopback }
    const kept = this.kept.get(name)
    if (kept && kept.untilMs > performance.now()) return kept.resolution
    const pending = this.resolving.get(name)
    if (pending) return pending
    const resolution = this.ask(name).finally(() => this.resolving.delete(name))
    this.resolving.set(name, resolution)
    return resolution
  }

  private async ask(name: string): Promise<Resolution> {
    const resolver = this.dnsResolver()
    // c-ares gives up on each server in turn; however many there are, the ask ends by this.
    const withinMs = 3 * this.queryTimeoutMs()
    const [v4, v6] = await Promise.all([
      answerWithin(resolver.resolve4(name, { ttl: true }), withinMs),
      answerWithin(resolver.resolve6(name, { ttl: true }), withinMs),
    ])
    const records = [
      ...(Array.isArray(v4) ? v4.map((record) => ({ ...record, family: 4 as const })) : []),
      ...(Array.isArray(v6) ? v6.map((record) => ({ ...record, family: 6 as const })) : []),
    ]
    let resolution: Resolution
    let keptMs = unresolvedKeptMs
    if (records.length > 0) {
      resolution = { addresses: records.map(({ address, family }) => ({ address, family })) }
      const ttlMs = Math.min(...records.map((record) => record.ttl * 1000))
      keptMs = Math.min(keptMsAtMost, Math.max(keptMsAtLeast, ttlMs))
    } else resolution = { unresolved: worstOf(v4, v6) }
    this.keep(name, resolution, keptMs)
    return resolution
  }

  private keep(name: string, resolution: Resolution, keptMs: number): void {
    if (this.kept.size >= (this.options.namesKept ?? 10_000)) this.kept.clear()
    this.kept.set(name, { resolution, untilMs: performance.now() + keptMs })
  }

  private dnsResolver(): dns.promises.Resolver {
    if (!this.resolver) {
      // c-ares sends a query again after the timeout, doubling it: 400 ms, then 800 ms.
      this.resolver = new dns.promises.Resolver({ timeout: this.queryTimeoutMs(), tries: 2 })
      this.resolver.setServers([...(this.options.servers ?? dns.getServers())])
    }
    return this.resolver
  }

  private queryTimeoutMs(): number {
    return this.options.queryTimeoutMs ?? 400
  }

  private hostsEntry(name: string): ResolvedAddress[] | undefined {
    const nowMs = performance.now()
    if (!this.hosts || nowMs - this.hosts.readAtMs > hostsKeptMs)
      this.hosts = { byName: readHostsFile(this.options.hostsFile ?? '/etc/hosts'), readAtMs: nowMs }
    return this.hosts.byName.get(name)
  }
}

const loopback: readonly ResolvedAddress[] = [
  { address: '127.0.0.1', family: 4 },
  { address: '::1', family: 6 },
]

type Answer = readonly { address: string; ttl: number }[] | { code: string }

/** The query's records, or the code of its refusal; ETIMEOUT once `withinMs` has passed without either. */
function answerWithin(query: Promise<dns.RecordWithTtl[]>, withinMs: number): Promise<Answer> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<Answer>((resolve) => {
    timer = setTimeout(() => resolve({ code: dns.TIMEOUT }), withinMs)
  })
  const answer = query.then(
    (records): Answer => records,
    (error): Answer => ({ code: String((error as { code?: unknown }).code) }),
  )
  return Promise.race([answer, late]).finally(() => clearTimeout(timer))
}

/** Why neither query found an address: no answer beats an error, which beats "no such name". */
function worstOf(...answers: Answer[]): 'not-found' | 'timed-out' | 'failed' {
  const codes = answers.flatMap((answer) => ('code' in answer ? [answer.code] : []))
  if (codes.includes(dns.TIMEOUT)) return 'timed-out'
  const missing: string[] = [dns.NOTFOUND, dns.NODATA]
  return codes.every((code) => missing.includes(code)) ? 'not-found' : 'failed'
}

/** `address name alias...` lines, `#` comments; a file that cannot be read lists nothing. */
function readHostsFile(path: string): Map<string, ResolvedAddress[]> {
  const byName = new Map<string, ResolvedAddress[]>()
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch {
    return byName
  }
  for (const line of text.split('\n')) {
    const [address, ...names] = line.replace(/#.*/, '').trim().split(/\s+/)
    const family = address ? isIP(address) : 0
    if (family !== 4 && family !== 6) continue
    for (const name of names) {
      const key = name.toLowerCase()
      byName.set(key, [...(byName.get(key) ?? []), { address: address!, family }])
    }
  }
  return byName
}

/** The one resolver of callback hosts in this process (a thread has its own). */
export const callbackHosts = new HostResolver()
