import type { IncomingMessage } from 'node:http'
import { BlockList, isIP } from 'node:net'

/**
 * The client's address as Fastify's trustProxy reads it (TRUST_PROXY), for a request not yet in
 * Fastify's hands (the front door): the peer, unless it is a trusted proxy, in which case the
 * address it forwarded (X-Forwarded-For, read from the right), and so on while each is trusted.
 */
export type ClientAddressOf = (request: IncomingMessage) => string

export function clientAddressReader(trustProxy: readonly string[]): ClientAddressOf {
  const peer = (request: IncomingMessage) => request.socket.remoteAddress ?? ''
  if (trustProxy.length === 0) return peer
  const trusted = new BlockList()
  for (const entry of trustProxy) {
    const [address = '', prefix] = entry.split('/')
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4'
    if (prefix === undefined) trusted.addAddress(address, family)
    else trusted.addSubnet(address, Number(prefix), family)
  }
  const isTrusted = (address: string) => {
    const family = isIP(address)
    return family !== 0 && trusted.check(address, family === 6 ? 'ipv6' : 'ipv4')
  }
  return (request) => {
    let address = peer(request)
    const header = request.headers['x-forwarded-for']
    if (typeof header !== 'string') return address
    const forwarded = header.split(',').map((hop) => hop.trim())
    while (isTrusted(address) && forwarded.length > 0) address = forwarded.pop()!
    return address
  }
}
