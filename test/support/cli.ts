import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { testSecretsKey } from './app.ts'

const run = promisify(execFile)
const sikaBin = fileURLToPath(new URL('../../bin/sika.mjs', import.meta.url))

export interface CliResult {
  code: number
  stdout: string
  stderr: string
}

/**
 * Runs `sika ARGS` as a real process, as an operator would, over the given database. Only the
 * settings the command needs are passed, so the developer's own environment cannot change it.
 */
export async function runSika(databaseUrl: string, args: string[], timeoutMs = 30_000): Promise<CliResult> {
  return runSikaIn(undefined, args, { DATABASE_URL: databaseUrl, SECRETS_KEY: testSecretsKey }, timeoutMs)
}

/**
 * Runs `sika ARGS` in `folder` (the repository's when undefined), with only PATH, HOME, TMPDIR
 * and the given settings in its environment: what it reads besides comes from `folder`'s .env.
 */
export async function runSikaIn(
  folder: string | undefined,
  args: string[],
  settings: Record<string, string> = {},
  timeoutMs = 30_000,
): Promise<CliResult> {
  const environment: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin', ...settings }
  if (process.env.TMPDIR) environment.TMPDIR = process.env.TMPDIR
  if (process.env.HOME) environment.HOME = process.env.HOME
  try {
    const { stdout, stderr } = await run(process.execPath, [sikaBin, ...args], {
      env: environment,
      timeout: timeoutMs,
      ...(folder === undefined ? {} : { cwd: folder }),
    })
    return { code: 0, stdout, stderr }
  } catch (error) {
    const failed = error as { code?: unknown; stdout?: string; stderr?: string; killed?: boolean }
    // A non-zero exit is an answer to check; a process killed by the timeout is a failure.
    if (typeof failed.code === 'number' && !failed.killed) {
      return { code: failed.code, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' }
    }
    throw error
  }
}
