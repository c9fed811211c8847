import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { Redis } from 'ioredis'
import { freePort } from './process.ts'
import { waitFor } from './wait.ts'

/** A redis-server of the test's own, on a free port, in its own process group. */
export class OwnRedis {
  private child: ChildProcess | undefined
  constructor(readonly port: number) {}

  /** Started on a free port; another test process may take the same port meanwhile, so a few are tried. */
  static async onFreePort(): Promise<OwnRedis> {
    for (let attempt = 1; ; attempt++) {
      const redis = new OwnRedis(await freePort())
      try {
        await redis.start()
        return redis
      } catch (error) {
        await redis.stop()
        if (attempt === 5) throw error
      }
    }
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`
  }

  /** Resolves once the redis-server answering on the port is this one (its process_id), not another test's. */
  async start(): Promise<void> {
    const args = ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no']
    const child = spawn('redis-server', args, { detached: true, stdio: 'ignore' })
    this.child = child
    await waitFor(
      `redis-server ${child.pid} on ${this.port}`,
      async () => {
        if (child.exitCode !== null) throw new Error(`redis-server could not listen on ${this.port}`)
        return (await serverPid(this.port)) === child.pid
      },
      5000,
    )
  }

  /** SIGSTOP: the connection stays open, but nothing answers. SIGCONT resumes it. */
  signal(signal: 'SIGSTOP' | 'SIGCONT'): void {
    if (this.child?.pid) process.kill(-this.child.pid, signal)
  }

  async stop(): Promise<void> {
    const child = this.child
    this.child = undefined
    if (!child?.pid || child.exitCode !== null || child.signalCode !== null) return
    const exited = once(child, 'exit')
    process.kill(-child.pid, 'SIGKILL')
    await exited
  }
}

async function serverPid(port: number): Promise<number | undefined> {
  const client = new Redis({
    port,
    host: '127.0.0.1',
    lazyConnect: true,
    connectTimeout: 500,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  })
  client.on('error', () => {})
  try {
    await client.connect()
    return Number(/process_id:(\d+)/.exec(await client.info('server'))?.[1])
  } catch {
    return undefined
  } finally {
    client.disconnect()
  }
}
