import { mkdirSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

/** Where the embedded store lives when DATABASE_URL is not set: a SQLite file, created on first start. */
export const defaultDatabaseUrl = './data/sika.db'

export type DatabaseLocation =
  | { readonly kind: 'sqlite'; readonly path: string }
  | { readonly kind: 'postgres'; readonly url: string }

/** Reads DATABASE_URL's value: a postgres:// URL, or a SQLite file's path or file: URL. Throws on a file: URL with parameters. */
export function parseDatabaseLocation(value: string): DatabaseLocation {
  if (/^postgres(ql)?:\/\//i.test(value)) return { kind: 'postgres', url: value }
  const path = sqlitePath(value)
  return { kind: 'sqlite', path: path === ':memory:' ? path : resolve(path) }
}

/**
 * A SQLite file's path, also when written as a `file:` URL (`file:///srv/sika.db`, or
 * `file:data/sika.db` relative to the working folder, as SQLite reads it), percent-decoded either
 * way: read as a plain path, `file:` would become a folder of that name. SQLite's URI parameters
 * (`?mode=ro`) would be ignored, so they are refused.
 */
function sqlitePath(value: string): string {
  if (!/^file:/i.test(value)) return value
  if (/[?#]/.test(value)) throw new Error('Sika opens the file itself: a file: URL takes no ?parameters')
  if (/^file:\/\//i.test(value)) return fileURLToPath(value)
  return decodeURIComponent(value.slice('file:'.length))
}

/** Creates the SQLite file's folder, so a fresh clone starts without any manual step. */
export function prepareDatabaseFolder(location: DatabaseLocation): void {
  if (location.kind === 'sqlite' && location.path !== ':memory:')
    mkdirSync(dirname(location.path), { recursive: true })
}
