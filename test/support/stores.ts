import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe } from 'node:test'
import pg from 'pg'

/** Where a store test runs: a fresh SQLite file, or a fresh PostgreSQL database. */
export interface StoreTarget {
  readonly name: 'sqlite' | 'postgres'
  /** The DATABASE_URL a process would be given. */
  readonly databaseUrl: string
}

export const postgresAdminUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const inCi = process.env.CI === 'true'

async function postgresAnswers(): Promise<boolean> {
  const client = new pg.Client({ connectionString: postgresAdminUrl, connectionTimeoutMillis: 3000 })
  try {
    await client.connect()
    await client.query('select 1')
    return true
  } catch {
    return false
  } finally {
    await client.end().catch(() => {})
  }
}

export const postgresAvailable = await postgresAnswers()
if (!postgresAvailable) {
  const line = `!!! PostgreSQL at ${postgresAdminUrl} does not answer: its store tests are ${inCi ? 'FAILING (CI=true)' : 'SKIPPED'} !!!`
  process.stderr.write(`\n${line}\n\n`)
}

/**
 * Declares the same suite once per store. Each suite gets its own empty database, created
 * before its tests and dropped after them, so test files can run in parallel.
 */
export function describeEachStore(title: string, suite: (target: () => StoreTarget) => void): void {
  for (const name of ['sqlite', 'postgres'] as const) {
    let target: StoreTarget | undefined
    let cleanup: () => Promise<void> = async () => {}
    const skip = name === 'postgres' && !postgresAvailable && !inCi ? 'PostgreSQL is not reachable' : false
    describe(`${title} [${name}]`, { skip }, () => {
      before(async () => {
        if (name === 'postgres' && !postgresAvailable)
          throw new Error(`PostgreSQL at ${postgresAdminUrl} is required under CI=true`)
        const created = name === 'sqlite' ? createSqliteTarget() : await createPostgresTarget()
        target = created.target
        cleanup = created.cleanup
      })
      after(() => cleanup())
      suite(() => {
        if (!target) throw new Error('the store is created in before()')
        return target
      })
    })
  }
}

export function createSqliteTarget() {
  const folder = mkdtempSync(join(tmpdir(), 'sika-test-'))
  return {
    target: { name: 'sqlite' as const, databaseUrl: join(folder, 'sika.db') },
    cleanup: async () => rmSync(folder, { recursive: true, force: true }),
  }
}

export async function createPostgresTarget() {
  const database = `sika_test_${randomBytes(6).toString('hex')}`
  const admin = new pg.Client({ connectionString: postgresAdminUrl })
  await admin.connect()
  await admin.query(`create database ${database}`)
  await admin.end()
  const url = new URL(postgresAdminUrl)
  url.pathname = `/${database}`
  return {
    target: { name: 'postgres' as const, databaseUrl: url.toString() },
    cleanup: async () => {
      const client = new pg.Client({ connectionString: postgresAdminUrl })
      await client.connect()
      await client.query(`drop database if exists ${database} with (force)`)
      await client.end()
    },
  }
}
