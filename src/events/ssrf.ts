import dns from 'node:dns'
import { lookup } from 'node:dns/promises'
import { BlockList, isIP, type LookupFunction } from 'node:net'

/**
 * Addresses a live callback must never reach: loopback, private, link-local, unique-local,
 * carrier-grade NAT, unspecified and multicast, in IPv4 and IPv6 (IPv4-mapped IPv6 included).
 */
const forbidden = new BlockList()
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  forbidden.addSubnet(network, prefix, 'ipv4')
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  forbidden.addSubnet(network, prefix, 'ipv6')
}

export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address)
  if (family === 4) return forbidden.check(address, 'ipv4')
  if (family !== 6) return true
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
  if (mapped) return forbidden.check(mapped[1]!, 'ipv4')
  return forbidden.check(address, 'ipv6')
}

/**
 * Undefined when the URL's host may be called; otherwise why not. Names are resolved and every
 * address checked; a name that does not resolve (yet) is not refused here, as it reaches nothing.
 */
export async function forbiddenHostReason(url: string): Promise<string | undefined> {
  const hostname = new URL(url).hostname.replace(/^\[|\]$/g, '')
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
