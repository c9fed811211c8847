import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import type { Duplex } from 'node:stream'
import { before, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { buildOpenApiDocument } from '../scripts/generate-client.ts'
import { ApiError, errorRegistry } from '../src/errors.ts'
import { answerClientError } from '../src/http/error-handler.ts'

/**
 * The error registry (src/errors.ts), the merchants' guide (docs/guide/errors.md) and the OpenAPI
 * document say the same codes with the same statuses. Each is read from the project itself: a
 * missing guide or table fails, it does not skip.
 */

const guidePath = fileURLToPath(new URL('../docs/guide/errors.md', import.meta.url))

/** The `| status | code | when |` table under a `## <title>` heading of the guide, as code -> status. */
function guideTable(markdown: string, title: string): Map<string, number> {
  const section = new RegExp(`^## ${title}\\n([\\s\\S]*?)(?=^## |(?![\\s\\S]))`, 'm').exec(markdown)?.[1]
  assert.ok(section, `docs/guide/errors.md has a "## ${title}" section`)
  const table = new Map<string, number>()
  for (const line of section.split('\n')) {
    const row = /^\|\s*(\d{3})\s*\|\s*`([a-z_]+)`\s*\|/.exec(line)
    if (!row) continue
    assert.ok(!table.has(row[2]!), `${row[2]} is listed once`)
    table.set(row[2]!, Number(row[1]))
  }
  assert.ok(table.size > 0, `the "${title}" table has rows`)
  return table
}

type JsonObject = Record<string, any>

/** Every code the document's error answers enumerate, with the status it is answered under. */
function documentedCodes(document: JsonObject): Map<string, Set<number>> {
  const codes = new Map<string, Set<number>>()
  const enumerated = (schema: JsonObject | undefined): string[] => {
    if (!schema) return []
    if (typeof schema.const === 'string') return [schema.const]
    if (Array.isArray(schema.enum)) return schema.enum
    return [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])].flatMap(enumerated)
  }
  for (const item of Object.values((document.paths ?? {}) as JsonObject)) {
    for (const operation of Object.values(item as JsonObject)) {
      for (const [status, response] of Object.entries((operation?.responses ?? {}) as JsonObject)) {
        if (!/^[45]\d\d$/.test(status)) continue
        const schema = response.content?.['application/json']?.schema
        for (const code of enumerated(schema?.properties?.code))
          codes.set(code, (codes.get(code) ?? new Set()).add(Number(status)))
      }
    }
  }
  return codes
}

const guide = readFileSync(guidePath, 'utf8')
const registry = new Map(Object.entries(errorRegistry).map(([code, entry]) => [code, entry.status]))
let documented: Map<string, Set<number>>
before(async () => {
  documented = documentedCodes((await buildOpenApiDocument()) as JsonObject)
})

test('every code of the error registry is in the guide’s table, with the same status, and nothing else is', () => {
  const table = guideTable(guide, 'Error codes')
  const mismatches = [...registry]
    .filter(([code, status]) => table.get(code) !== status)
    .map(([code, status]) => `${code}: registry ${status}, guide ${table.get(code) ?? 'absent'}`)
  assert.deepEqual(mismatches, [])
  assert.deepEqual(
    [...table.keys()].filter((code) => !registry.has(code)),
    [],
    'codes in the guide that the registry does not have',
  )
})

test('every code the OpenAPI document lists is in the guide’s table with that status', () => {
  const table = guideTable(guide, 'Error codes')
  const mismatches = [...documented].flatMap(([code, statuses]) =>
    [...statuses]
      .filter((status) => table.get(code) !== status)
      .map((status) => `${code}: document ${status}, guide ${table.get(code) ?? 'absent'}`),
  )
  assert.deepEqual(mismatches, [])
})

test('every registry code is answered somewhere in the document, but the one the guide says no endpoint lists', () => {
  const unlisted = [...registry.keys()].filter((code) => !documented.has(code))
  assert.deepEqual(unlisted, ['method_not_allowed'])
  assert.match(guide, /`method_not_allowed` is the only one no endpoint lists/)
})

test('the guide’s table of malformed HTTP is what the HTTP parser’s refusals answer', () => {
  const answered = new Map<string, number>()
  const answer = answerClientError({ warn: () => {} })
  for (const parserCode of [
    'ERR_HTTP_REQUEST_TIMEOUT',
    'HPE_HEADER_OVERFLOW',
    'HPE_INVALID_METHOD',
    'HPE_INVALID_HEADER_TOKEN',
  ]) {
    let written = ''
    const socket = {
      destroyed: false,
      writable: true,
      write: (chunk: string) => {
        written += chunk
        return true
      },
      destroy: () => {},
    }
    answer(Object.assign(new Error('refused'), { code: parserCode }), socket as unknown as Duplex)
    const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(written)?.[1])
    const body = JSON.parse(written.slice(written.indexOf('\r\n\r\n') + 4)) as {
      code: string
      statusCode: number
    }
    assert.equal(body.statusCode, status, parserCode)
    answered.set(body.code, status)
  }
  assert.deepEqual([...guideTable(guide, 'Malformed HTTP')].sort(), [...answered].sort())
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
