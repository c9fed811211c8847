import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { parseEnv } from 'node:util'
import { ConfigError } from './config.ts'

/**
 * The settings file beside the environment: `.env` in the folder a `sika` command runs in,
 * `KEY=value` lines as dotenv reads them (Node's own parser). `sika serve` and every other command
 * read it the same way, so a command run from the server's folder opens the server's database and
 * prints links on its address. Sika never writes it; git ignores it.
 */
export interface SettingsFile {
  /** The file read, or undefined when the folder has none. */
  readonly path: string | undefined
  readonly values: Readonly<Record<string, string | undefined>>
}

export const settingsFileName = '.env'

/** Reads `.env` in `folder`, if there is one; one it cannot read stops the command, naming it. */
export function readSettingsFile(folder: string = process.cwd()): SettingsFile {
  const path = resolve(folder, settingsFileName)
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException
    if (code === 'ENOENT') return { path: undefined, values: {} }
    throw new ConfigError([`${path} cannot be read (${message}): fix its permissions, or remove it`])
  }
  return { path, values: parseEnv(text) }
}

/**
 * Adds the file's settings to the environment, each only where the environment has none: the
 * environment wins, as with dotenv. Everything that reads the environment afterwards (the config,
 * the log level, threads and processes started later) sees the same settings.
 */
export function applySettingsFile(file: SettingsFile, environment: NodeJS.ProcessEnv = process.env): void {
  for (const [name, value] of Object.entries(file.values))
    if (environment[name] === undefined && value !== undefined) environment[name] = value
}

/**
 * The settings every `sika` command must share with the server to act on the same installation:
 * where its database is, the key that opens its webhook secrets, and the address its links use.
 */
export const sharedSettings = [
  'DATABASE_URL',
  'SECRETS_KEY',
  'SECRETS_KEY_FILE',
  'PORT',
  'PUBLIC_BASE_URL',
] as const

/**
 * Of the shared settings, those this process has from its environment other than the settings
 * file says (before the file is applied): a command run in another terminal, from the same folder,
 * would not see them.
 */
export function settingsOutsideTheFile(
  file: SettingsFile,
  environment: NodeJS.ProcessEnv = process.env,
): string[] {
  return sharedSettings.filter((name) => {
    const value = environment[name]
    return value !== undefined && value.trim() !== '' && value !== file.values[name]
  })
}
