import { createSocket } from 'node:dgram'
import { once } from 'node:events'
import { isIPv4, isIPv6 } from 'node:net'

/** How the server answers one name: its addresses, after a delay, or never. Names not listed are NXDOMAIN. */
export interface DnsName {
  a?: string[]
  aaaa?: string[]
  delayMs?: number
  /** Never answered: the querier waits out its timeout. */
  silent?: boolean
  ttlS?: number
}

export interface DnsServer {
  /** 127.0.0.1:<port>, for `dns.setServers` or a resolver's `servers`. */
  readonly address: string
  /** Each question received: the name and its type (1: A, 28: AAAA). */
  readonly questions: { name: string; type: number }[]
  close(): Promise<void>
}

/**
 * A DNS server on 127.0.0.1 (UDP, RFC 1035 messages), answering A and AAAA questions from a table:
 * enough for tests of what a resolver does when the DNS is slow, silent, or names a private address.
 */
export async function startDnsServer(names: Record<string, DnsName>): Promise<DnsServer> {
  const socket = createSocket('udp4')
  const questions: { name: string; type: number }[] = []
  const timers = new Set<NodeJS.Timeout>()
  socket.on('message', (message, remote) => {
    const question = parseQuestion(message)
    if (!question) return
    questions.push({ name: question.name, type: question.type })
    const entry = names[question.name.toLowerCase()]
    if (entry?.silent) return
    const reply = answer(message, question, entry)
    const timer = setTimeout(() => {
      timers.delete(timer)
      socket.send(reply, remote.port, remote.address)
    }, entry?.delayMs ?? 0)
    timers.add(timer)
  })
  socket.bind(0, '127.0.0.1')
  await once(socket, 'listening')
  return {
    address: `127.0.0.1:${socket.address().port}`,
    questions,
    close: async () => {
      for (const timer of timers) clearTimeout(timer)
      socket.close()
      await once(socket, 'close')
    },
  }
}

interface Question {
  name: string
  type: number
  /** The question section as received, copied into the answer. */
  section: Buffer
}

function parseQuestion(message: Buffer): Question | undefined {
  if (message.length < 12 || message.readUInt16BE(4) !== 1) return undefined
  const labels: string[] = []
  let offset = 12
  while (offset < message.length && message[offset] !== 0) {
    const length = message[offset]!
    labels.push(message.subarray(offset + 1, offset + 1 + length).toString('latin1'))
    offset += 1 + length
  }
  const end = offset + 5
  if (end > message.length) return undefined
  return {
    name: labels.join('.'),
    type: message.readUInt16BE(offset + 1),
    section: message.subarray(12, end),
  }
}

function answer(query: Buffer, question: Question, entry: DnsName | undefined): Buffer {
  const addresses = (question.type === 1 ? entry?.a : question.type === 28 ? entry?.aaaa : undefined) ?? []
  const records = addresses.map((address) => record(address, entry?.ttlS ?? 60))
  const header = Buffer.alloc(12)
  header.writeUInt16BE(query.readUInt16BE(0), 0)
  // A response, recursion desired and available; NXDOMAIN (3) for a name not in the table.
  header.writeUInt16BE(0x8180 | (entry ? 0 : 3), 2)
  header.writeUInt16BE(1, 4)
  header.writeUInt16BE(records.length, 6)
  return Buffer.concat([header, question.section, ...records])
}

function record(address: string, ttlS: number): Buffer {
  const data = isIPv4(address) ? Buffer.from(address.split('.').map(Number)) : ipv6Bytes(address)
  const fixed = Buffer.alloc(12)
  // A pointer to the question's name, at offset 12.
  fixed.writeUInt16BE(0xc00c, 0)
  fixed.writeUInt16BE(isIPv4(address) ? 1 : 28, 2)
  fixed.writeUInt16BE(1, 4)
  fixed.writeUInt32BE(ttlS, 6)
  fixed.writeUInt16BE(data.length, 10)
  return Buffer.concat([fixed, data])
}

function ipv6Bytes(address: string): Buffer {
  if (!isIPv6(address)) throw new Error(`${address} is not an address`)
  const [head = '', tail = ''] = address.split('::')
  const left = head ? head.split(':') : []
  const right = tail ? tail.split(':') : []
  const groups = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right]
  const bytes = Buffer.alloc(16)
  for (const [index, group] of groups.entries()) bytes.writeUInt16BE(Number.parseInt(group, 16), index * 2)
  return bytes
}
