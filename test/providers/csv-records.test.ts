import assert from 'node:assert/strict'
import { test } from 'node:test'
import { parse } from 'csv-parse/sync'
import { csvRecords } from '../../src/providers/csv-records.ts'

/** Operators' statement files (RFC 4180) read as records, as a full CSV parser reads them. */

const files = [
  'a,b,c\r\n1,2,3\r\n4,5,6\r\n',
  'a,b\n1,2\n\n3,4',
  '\uFEFFTransaction ID,Amount\nx,"1,000.00"\n',
  'a,b\n"He said ""hi""","line one\r\nline two"\n"",plain\n',
  'name,note\r\n"Ndiaye, Fatou","a ""quoted"" ""word"""\r\nlast,"ends here"',
]

for (const [index, file] of files.entries()) {
  test(`file ${index + 1}: the same records as csv-parse gives`, () => {
    assert.deepEqual(csvRecords(file), parse(file, { columns: true, bom: true, skip_empty_lines: true }))
  })
}

test('a row shorter than the header leaves its missing cells empty; an unclosed quote is an error', () => {
  assert.deepEqual(csvRecords('a,b,c\n1,2\n'), [{ a: '1', b: '2', c: '' }])
  assert.throws(() => csvRecords('a,b\n"open,2\n'), /never closed/)
  assert.deepEqual(csvRecords(''), [])
})
