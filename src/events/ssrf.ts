import dns, { type LookupAddress } from 'node:dns'
import { BlockList, isIP, type LookupFunction } from 'node:net'
import { parseHttpUrl } from '../domain/urls.ts'
import { callbackHosts } from './host-resolver.ts'

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
 * Undefined when the URL's host may be called; otherwise why not. Names are resolved
 * (`callbackHosts`, off libuv's thread pool, within about a second) and every address checked. A
 * name that does not resolve, or not in time, is not refused here: it reaches nothing now, and
 * delivery resolves it again, the same way, and connects only to public addresses
 * (`publicOnlyLookup`). Refusing it would fail a merchant's payment for its DNS being slow once.
 */
export async function forbiddenHostReason(url: string): Promise<string | undefined> {
  const parsed = parseHttpUrl(url)
  if (!parsed) return 'it is not an http(s) URL'
  const hostname = parsed.hostname.replace(/^\[|\]$/g, '')
  if (isIP(hostname)) return isForbiddenAddress(hostname) ? `${hostname} is not a public address` : undefined
  const resolution = await callbackHosts.resolve(hostname)
  if (!('addresses' in resolution)) return undefined
  const bad = resolution.addresses.find((entry) => isForbiddenAddress(entry.address))
  return bad ? `${hostname} resolves to ${bad.address}, which is not a public address` : undefined
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void

/**
 * A lookup for the delivery agents, through `callbackHosts` (so a delivery never waits on libuv's
 * thread pool either): `publicOnly` keeps the public addresses alone, so the address checked is
 * the one connected to, and a name that resolved to a public address at initiation cannot be
 * rebound to an internal one later.
 */
function callbackLookup(publicOnly: boolean): LookupFunction {
  return (hostname, options, callback) => {
    const answer = callback as LookupCallback
    const wanted = familyOf(options.family)
    callbackHosts.resolve(hostname).then(
      (resolution) => {
        if (!('addresses' in resolution)) {
          const code = resolution.unresolved === 'timed-out' ? dns.TIMEOUT : dns.NOTFOUND
          const why = resolution.unresolved === 'timed-out' ? 'did not resolve in time' : 'does not resolve'
          return answer(Object.assign(new Error(`${hostname} ${why}`), { code, hostname }), '', 0)
        }
        const found = resolution.addresses.filter((entry) => wanted === 0 || entry.family === wanted)
        const allowed = publicOnly ? found.filter((entry) => !isForbiddenAddress(entry.address)) : found
        if (allowed.length === 0) {
          const why =
            publicOnly && found.length > 0 ? 'resolves only to non-public addresses' : 'has no address'
          return answer(
            Object.assign(new Error(`${hostname} ${why}`), { code: publicOnly ? 'ESSRF' : dns.NODATA }),
            '',
            0,
          )
        }
        if (options.all)
          return answer(
            null,
            allowed.map(({ address, family }) => ({ address, family })),
          )
        return answer(null, allowed[0]!.address, allowed[0]!.family)
      },
      (error) => answer(error, '', 0),
    )
  }
}

function familyOf(family: number | string | undefined): 0 | 4 | 6 {
  if (family === 4 || family === 'IPv4') return 4
  if (family === 6 || family === 'IPv6') return 6
  return 0
}

/** Live deliveries: public addresses only. */
export const publicOnlyLookup = callbackLookup(true)
/** Sandbox deliveries, which may call a developer's own machine: any address. */
export const anyAddressLookup = callbackLookup(false)
