import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { join, sep } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

/**
 * Three rules of docs/architecture.md, measured on every .ts file under src/: no query and no
 * database handle outside src/store, no kind name branched on outside src/domain, and no function
 * over 70 lines outside the migrations (which are written once and never change). Each failure
 * names the places at fault.
 */

const repositoryRoot = fileURLToPath(new URL('..', import.meta.url))
const longestFunctionLines = 70

/** Each .ts file under src/, by its path from the repository's root, with forward slashes. */
const sources = readdirSync(join(repositoryRoot, 'src'), { recursive: true })
  .map(String)
  .filter((file) => file.endsWith('.ts'))
  .sort()
  .map((file) => {
    const path = `src/${file.split(sep).join('/')}`
    return { path, text: readFileSync(join(repositoryRoot, path), 'utf8') }
  })

const queryPattern =
  /\.(selectFrom|insertInto|updateTable|deleteFrom|replaceInto|mergeInto)\(|\bsql(<[^>]*>)?`/
const handlePattern = /\.db\b/
const kindBranchPattern = /(===|!==|case)\s*'(collect|recharge|disbursement|withdraw|transfer|refund)'/

/** The lines of the sources outside `folder` that match `pattern`, comments left out, as `path:line`. */
function linesMatching(pattern: RegExp, outside: string): string[] {
  const places: string[] = []
  for (const { path, text } of sources) {
    if (path.startsWith(outside)) continue
    text.split('\n').forEach((line, index) => {
      const trimmed = line.trim()
      if (trimmed.startsWith('//') || trimmed.startsWith('*')) return
      if (pattern.test(line)) places.push(`${path}:${index + 1}`)
    })
  }
  return places
}

test('no query and no database handle outside src/store', () => {
  assert.deepEqual(linesMatching(queryPattern, 'src/store/'), [], 'queries built outside src/store')
  assert.deepEqual(linesMatching(handlePattern, 'src/store/'), [], 'a database handle outside src/store')
})

test('no kind name branched on outside src/domain: the kinds table says what differs', () => {
  assert.deepEqual(linesMatching(kindBranchPattern, 'src/domain/'), [])
})

/** Every function with a body in one source, with its length in lines (its first to its last). */
function functionLengths(path: string, text: string): { lines: number; place: string }[] {
  const lengths: { lines: number; place: string }[] = []
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true)
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart()).line
      const last = source.getLineAndCharacterOfPosition(node.end).line
      lengths.push({ lines: last - first + 1, place: `${path}:${first + 1} ${functionName(node)}` })
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return lengths
}

test(`no function over ${longestFunctionLines} lines outside the migrations`, () => {
  const lengths = sources
    .filter(({ path }) => !path.startsWith('src/store/migrations/'))
    .flatMap(({ path, text }) => functionLengths(path, text))
    .sort((a, b) => b.lines - a.lines)
  console.log(
    `the longest functions: ${lengths
      .slice(0, 3)
      .map((f) => `${f.lines} lines, ${f.place}`)
      .join('; ')}`,
  )
  const over = lengths
    .filter((f) => f.lines > longestFunctionLines)
    .map((f) => `${f.place} (${f.lines} lines)`)
  assert.deepEqual(over, [])
})

function functionName(node: ts.SignatureDeclaration): string {
  if (node.name) return node.name.getText()
  if (ts.isVariableDeclaration(node.parent)) return node.parent.name.getText()
  return '(anonymous)'
}

test('the rules see what they look for: a query, a handle, a kind branch, a function’s length', () => {
  const seen = (pattern: RegExp, line: string) => pattern.test(line)
  assert.ok(seen(queryPattern, "  await db.selectFrom('operations')"))
  assert.ok(seen(queryPattern, '  const rows = sql<Row>`select 1`'))
  assert.ok(seen(handlePattern, '  context.store.db.close()'))
  assert.ok(seen(kindBranchPattern, "  if (operation.kind === 'collect') {"))
  const body = Array.from(
    { length: longestFunctionLines - 1 },
    (_, index) => `  const line${index} = ${index}`,
  )
  const long = `export function settle() {\n${body.join('\n')}\n}\nconst short = () => {\n  return 1\n}\n`
  assert.deepEqual(
    functionLengths('src/app/settle.ts', long).map((f) => [f.lines, f.place]),
    [
      [longestFunctionLines + 1, 'src/app/settle.ts:1 settle'],
      [3, 'src/app/settle.ts:72 short'],
    ],
  )
  assert.ok(
    sources.some(({ path }) => path === 'src/store/store.ts'),
    'the sources include src/store',
  )
  assert.ok(
    sources.some(({ path }) => path.startsWith('src/store/migrations/')),
    'and the migrations, left out of the length rule only',
  )
})
