import assert from 'node:assert/strict'
import { existsSync, readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { ApiError, errorRegistry } from '../src/errors.ts'

// CI runs on a fresh clone with shared/ beside the repository, as on a developer's machine.
const repositoryRoot = fileURLToPath(new URL('..', import.meta.url))
const contractPath = resolve(repositoryRoot, '../shared/CONTRACT.md')
const skip = existsSync(contractPath)
  ? false
  : `CONTRACT.md is not at ${contractPath}: nothing to compare with`

/** The `| status | code(s) |` table of CONTRACT.md's Errors section, as code -> HTTP status. */
function contractErrorTable(markdown: string): Map<string, number> {
  const section = /^## Errors\n([\s\S]*?)(?=^## )/m.exec(markdown)?.[1]
  assert.ok(section, 'CONTRACT.md has an "## Errors" section')
  const table = new Map<string, number>()
  for (const line of section.split('\n')) {
    const row = /^\|\s*(\d{3})\s*\|(.*)\|\s*$/.exec(line)
    if (!row) continue
    // Parentheses describe a code (`token` in the 409's, `Allow` in the 405's); they are not codes.
    const codes = row[2]!.replace(/\([^)]*\)/g, '')
    for (const [, code] of codes.matchAll(/`([a-z_]+)`/g)) {
      assert.ok(!table.has(code!), `${code} is listed once`)
      table.set(code!, Number(row[1]))
    }
  }
  assert.ok(table.size > 0, 'the Errors table has rows')
  return table
}

const registry = new Map(Object.entries(errorRegistry).map(([code, entry]) => [code, entry.status]))

test('every code of the error registry is in CONTRACT.md\u2019s Errors table, with the same status', {
  skip,
}, () => {
  const contract = contractErrorTable(readFileSync(contractPath, 'utf8'))
  const mismatches = [...registry]
    .filter(([code, status]) => contract.get(code) !== status)
    .map(([code, status]) => `${code}: registry ${status}, CONTRACT.md ${contract.get(code) ?? 'absent'}`)
  assert.deepEqual(mismatches, [])
})

test('every code of CONTRACT.md\u2019s Errors table is in the error registry', { skip }, () => {
  const contract = contractErrorTable(readFileSync(contractPath, 'utf8'))
  const missing = [...contract.keys()].filter((code) => !registry.has(code))
  assert.deepEqual(missing, [])
})

test('every registry entry has a message a client can show', () => {
  for (const [code, entry] of Object.entries(errorRegistry)) {
    assert.ok(entry.status >= 400 && entry.status <= 599, `${code} is an error status`)
    assert.ok(entry.message.trim().length > 0, `${code} has a message`)
  }
})

test('a refusal (4xx) is built without a stack, which only a 5xx needs in the log; the stack limit is left as it was', () => {
  const limit = Error.stackTraceLimit
  const refusal = new ApiError('rate_limited')
  const failure = new ApiError('internal_error')
  assert.equal(refusal.stack, `Error: ${errorRegistry.rate_limited.message}`)
  assert.match(failure.stack ?? '', /\n\s+at /)
  assert.equal(Error.stackTraceLimit, limit)
})
