import { type ChildProcess, type ChildProcessByStdio, spawn } from 'node:child_process'
import { once } from 'node:events'
import { createServer } from 'node:net'
import type { Readable } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { testSecretsKey } from './app.ts'

const repositoryRoot = fileURLToPath(new URL('../..', import.meta.url))
const sikaBin = fileURLToPath(new URL('../../bin/sika.mjs', import.meta.url))

/** Every `sika` process a test started and that has not exited, each the leader of its own group. */
const running = new Set<ChildProcess>()

// The last resort if the test process ends without its `after` hooks (a crash, a timeout).
process.once('exit', () => {
  for (const child of running) signalGroup(child, 'SIGKILL')
})

export const hasExited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null

/** Signals a process's whole group: the leader and anything it started. */
export function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return
  try {
    process.kill(-child.pid, signal)
  } catch {
    // The group has already ended.
  }
}

/**
 * `node bin/sika.mjs ARGS` as a real process, in a process group of its own (detached) so that
 * stopping it stops all it started, and remembered so that it never outlives the test process.
 */
export function spawnSika(
  args: readonly string[],
  options: { env: NodeJS.ProcessEnv; cwd?: string },
): ChildProcessByStdio<null, Readable, Readable> {
  const child = spawn(process.execPath, [sikaBin, ...args], {
    cwd: options.cwd ?? repositoryRoot,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  })
  running.add(child)
  child.once('exit', () => running.delete(child))
  return child
}

/** Signals the group, resolves once its leader has exited, then ends whatever the leader left. */
export async function stopGroup(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (!hasExited(child)) {
    const exited = once(child, 'exit')
    signalGroup(child, signal)
    await exited
  }
  signalGroup(child, 'SIGKILL')
}

/** `sika serve` as a real process, as a user or an operator runs it. */
export interface ServiceProcess {
  readonly url: string
  /** Where its /metrics listens (any free port: METRICS_PORT=0), as its ready line says. */
  readonly metricsUrl: string
  readonly child: ChildProcess
  /** Everything the process printed on stdout. */
  output(): string
  kill(signal: NodeJS.Signals): Promise<void>
}

/**
 * A port free now, outside the range the kernel hands out for outgoing connections (32768–60999
 * on Linux), so that a service killed and started again on the same port does not find it taken
 * by some connection's local end in between (seen once: EADDRINUSE on a restart).
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const port = fixedPortsFrom + Math.floor(Math.random() * fixedPortsCount)
    if (await canListen(port)) return port
  }
  throw new Error('no free port below the ephemeral range')
}

const fixedPortsFrom = 20_000
const fixedPortsCount = 12_000

/** Whether a server could listen on this port of 127.0.0.1 now. */
export async function canListen(port: number): Promise<boolean> {
  const server = createServer()
  const listening = new Promise<boolean>((resolve) => {
    server.once('listening', () => resolve(true))
    server.once('error', () => resolve(false))
  })
  server.listen(port, '127.0.0.1')
  const free = await listening
  if (free) await new Promise((resolve) => server.close(resolve))
  return free
}

/**
 * Starts `node bin/sika.mjs serve` and resolves once it logs that it is ready. On a port it chose,
 * taken by another process between the check and the listen (tests run side by side pick ports in
 * the same range), it starts again on another.
 */
export async function startService(
  environment: Record<string, string>,
  port?: number,
): Promise<ServiceProcess> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startServiceOn(environment, port ?? (await freePort()))
    } catch (error) {
      if (port !== undefined || !(error instanceof PortTaken) || attempt === 3) throw error
    }
  }
}

class PortTaken extends Error {}

async function startServiceOn(
  environment: Record<string, string>,
  chosenPort: number,
): Promise<ServiceProcess> {
  const url = `http://127.0.0.1:${chosenPort}`
  const child = spawnSika(['serve'], {
    env: {
      PATH: process.env.PATH,
      HOST: '127.0.0.1',
      PORT: String(chosenPort),
      // /metrics listens apart: any free port, so services started side by side never clash.
      METRICS_PORT: '0',
      PUBLIC_BASE_URL: url,
      SECRETS_KEY: testSecretsKey,
      LOG_LEVEL: 'info',
      ...environment,
    },
  })
  let stdout = ''
  let stderr = ''
  child.stdout?.on('data', (chunk) => {
    stdout += chunk
  })
  child.stderr?.on('data', (chunk) => {
    stderr += chunk
  })
  const deadline = Date.now() + 30_000
  while (!stdout.includes('Sika is ready')) {
    if (child.exitCode !== null) {
      const taken = stderr.includes(`port ${chosenPort} is in use`)
      throw new (taken ? PortTaken : Error)(`sika serve exited with ${child.exitCode}:\n${stdout}\n${stderr}`)
    }
    if (Date.now() > deadline) {
      await stopGroup(child, 'SIGKILL')
      throw new Error(`sika serve did not become ready in 30 s:\n${stdout}\n${stderr}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  const metricsUrl = /"metrics":"([^"]+)"/.exec(stdout)?.[1] ?? ''
  return {
    url,
    metricsUrl,
    child,
    output: () => stdout,
    kill: (signal) => stopGroup(child, signal),
  }
}

/** The demo merchant's keys and webhook secret, as the first start printed them. */
export function demoCredentials(output: string) {
  const find = (pattern: RegExp) => {
    const match = pattern.exec(output)
    if (!match?.[1]) throw new Error(`the first start did not print ${pattern}:\n${output}`)
    return match[1]
  }
  return {
    merchantId: find(/merchant id\s+(mer_[a-z0-9]+)/),
    apiKey: find(/api-key\s+(pk_test_[A-Za-z0-9]+)/),
    secretKey: find(/secret-key\s+(sk_test_[A-Za-z0-9]+)/),
    webhookSecret: find(/webhook secret\s+(whsec_[A-Za-z0-9+/=]+)/),
  }
}
