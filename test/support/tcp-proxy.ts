import { connect, createServer, type Server, type Socket } from 'node:net'

/**
 * A TCP forwarder on 127.0.0.1 that a test can cut, freeze and restore, to take a database
 * away from a running server and give it back on the same address, without touching the
 * database itself.
 */
export interface TcpProxy {
  /** The port it listens on; it keeps it across stop() and start(). */
  readonly port: number
  /** Stops listening and destroys every open connection: connecting is refused, as when the host is down. */
  stop(): Promise<void>
  /** Listens again on the same port. */
  start(): Promise<void>
  /**
   * Keeps every connection open but carries no byte in either direction, and holds new
   * connections unanswered: a network partition, where packets are dropped rather than refused.
   */
  freeze(): void
  /** Delivers what was held and forwards again. */
  thaw(): void
}

interface Pair {
  client: Socket
  upstream: Socket
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>()
  const pairs = new Set<Pair>()
  const held = new Set<Socket>()
  let frozen = false
  let server: Server | undefined
  let port = 0

  const track = (socket: Socket) => {
    sockets.add(socket)
    socket.on('close', () => {
      sockets.delete(socket)
      held.delete(socket)
    })
  }

  const forward = (client: Socket) => {
    const upstream = connect(target.port, target.host)
    track(upstream)
    const pair = { client, upstream }
    pairs.add(pair)
    upstream.on('close', () => pairs.delete(pair))
    client.on('error', () => upstream.destroy())
    upstream.on('error', () => client.destroy())
    client.on('close', () => upstream.destroy())
    upstream.on('close', () => client.destroy())
    client.pipe(upstream).pipe(client)
  }

  const listen = async (): Promise<void> => {
    const listening = createServer((client) => {
      track(client)
      if (!frozen) return forward(client)
      client.pause()
      held.add(client)
    })
    await new Promise<void>((resolve, reject) => {
      listening.once('error', reject)
      listening.listen(port, '127.0.0.1', () => {
        listening.off('error', reject)
        resolve()
      })
    })
    const address = listening.address()
    if (!address || typeof address === 'string') throw new Error('the proxy has no TCP address')
    port = address.port
    server = listening
  }

  await listen()
  return {
    get port() {
      return port
    },
    stop: async () => {
      const closing = server
      server = undefined
      if (!closing) return
      const closed = new Promise<void>((resolve) => closing.close(() => resolve()))
      for (const socket of sockets) socket.destroy()
      await closed
    },
    start: async () => {
      if (!server) await listen()
    },
    freeze: () => {
      frozen = true
      for (const { client, upstream } of pairs) {
        client.unpipe(upstream)
        upstream.unpipe(client)
        client.pause()
        upstream.pause()
      }
    },
    thaw: () => {
      frozen = false
      for (const { client, upstream } of pairs) {
        client.pipe(upstream)
        upstream.pipe(client)
      }
      for (const client of held) {
        held.delete(client)
        forward(client)
      }
    },
  }
}
