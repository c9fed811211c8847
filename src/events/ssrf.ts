import dns from 'node:dns'
import { lookup } from 'node:dns/promises'
import { BlockList, isIP, type LookupFunction } from 'node:net'
import { parseHttpUrl } from '../domain/urls.ts'

/**
 * Addresses a live callback must never reach: loopback, private, link-local, unique-local,
 * carrier-grade NAT, unspecified, multicast and reserved, in IPv4 and IPv6. An IPv6 address that
 * carries an IPv4 one (IPv4-mapped, NAT64) is judged by the IPv4 address it reaches.
 */
const forbiddenIpv4 = new BlockList()
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  forbiddenIpv4.addSubnet(network, prefix, 'ipv4')
}

/**
 * IPv6 networks refused whole: IPv4-compatible (::/96, deprecated, ::1 and :: among them), the
 * discard prefix, local-use NAT64, Teredo and 6to4 (deprecated tunnels to arbitrary IPv4 hosts),
 * unique-local, link-local, site-local and multicast.
 */
const forbiddenIpv6 = new BlockList()
for (const [network, prefix] of [
  ['::', 96],
  ['100::', 64],
  ['64:ff9b:1::', 48],
  ['2001::', 32],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  forbiddenIpv6.addSubnet(network, prefix, 'ipv6')
}

export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address)
  if (family === 4) return forbiddenIpv4.check(address, 'ipv4')
  // Not an address, or one with a zone (fe80::1%eth0): reachable only on a local link.
  if (family !== 6 || address.includes('%')) return true
  const groups = ipv6Groups(address)
  if (!groups) return true
  const carried = carriedIpv4(groups)
  if (carried) return forbiddenIpv4.check(carried, 'ipv4')
  return forbiddenIpv6.check(address, 'ipv6')
}

/** The eight 16-bit groups of an IPv6 address (a dotted IPv4 tail included); undefined if malformed. */
function ipv6Groups(address: string): number[] | undefined {
  let text = address.toLowerCase()
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text)
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number]
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const [head, tail, ...rest] = text.split('::')
  if (rest.length > 0 || head === undefined) return undefined
  const parse = (part: string) =>
    part === '' ? [] : part.split(':').map((group) => Number.parseInt(group, 16))
  const left = parse(head)
  const right = tail === undefined ? [] : parse(tail)
  const missing = 8 - left.length - right.length
  if (missing < 0 || (tail === undefined && missing !== 0)) return undefined
  const groups = [...left, ...Array<number>(missing).fill(0), ...right]
  return groups.every((group) => Number.isInteger(group) && group >= 0 && group <= 0xffff)
    ? groups
    : undefined
}

/** The IPv4 address an IPv4-mapped (::ffff:0:0/96) or NAT64 (64:ff9b::/96) address reaches. */
function carriedIpv4(groups: readonly number[]): string | undefined {
  const mapped = groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff
  const nat64 = groups[0] === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((group) => group === 0)
  if (!mapped && !nat64) return undefined
  const [high, low] = [groups[6]!, groups[7]!]
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.')
}

/**
 * Undefined when the URL's host may be called; otherwise why not. Names are resolved and every
 * address checked; a name that does not resolve (yet) is not refused here, as it reaches nothing.
 */
export async function forbiddenHostReason(url: string): Promise<string | undefined> {
  const parsed = parseHttpUrl(url)
  if (!parsed) return 'it is not an http(s) URL'
  const hostname = parsed.hostname.replace(/^\[|\]$/g, '')
  if (isIP(hostname)) return isForbiddenAddress(hostname) ? `${hostname} is not a public address` : undefined
  let addresses: { address: string }[]
  try {
    addresses = await lookup(hostname, { all: true, verbatim: true })
  } catch {
    // Nothing to reach now; delivery resolves again and refuses internal addresses then.
    return undefined
  }
  const bad = addresses.find((entry) => isForbiddenAddress(entry.address))
  return bad ? `${hostname} resolves to ${bad.address}, which is not a public address` : undefined
}

/**
 * A lookup for the delivery agent: the address checked is the one connected to, so a name that
 * resolved to a public address at initiation cannot be rebound to an internal one later.
 */
export const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, '', 0)
    const list = addresses as unknown as dns.LookupAddress[]
    const allowed = list.filter((entry) => !isForbiddenAddress(entry.address))
    if (allowed.length === 0) {
      const refused = Object.assign(new Error(`${hostname} resolves only to non-public addresses`), {
        code: 'ESSRF',
      })
      return callback(refused, '', 0)
    }
    if ((options as { all?: boolean }).all) {
      return (callback as unknown as (error: null, addresses: dns.LookupAddress[]) => void)(null, allowed)
    }
    return callback(null, allowed[0]!.address, allowed[0]!.family)
  })
}
