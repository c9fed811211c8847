import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { test } from 'node:test'
import { clientFiles, generateClientFiles, snapshotBaseUrl } from '../../scripts/generate-client.ts'

// The client's types are generated from the OpenAPI document, which is generated from the route
// schemas: the committed snapshot must be what the schemas produce today.

/** Where two texts part, as a short message rather than a diff of 600 KB. */
function firstDifference(committed: string, expected: string): string {
  const committedLines = committed.split('\n')
  const expectedLines = expected.split('\n')
  const line = committedLines.findIndex((text, index) => text !== expectedLines[index])
  const at = line === -1 ? committedLines.length : line
  return `line ${at + 1}: committed ${JSON.stringify(committedLines[at] ?? '<end of file>')}, the schemas give ${JSON.stringify(expectedLines[at] ?? '<end of file>')}`
}

const expected = await generateClientFiles()

for (const name of ['document', 'schema', 'dataKeys'] as const) {
  test(`${clientFiles[name].replace(/^.*\/client\//, 'client/')} is what the route schemas produce`, async () => {
    const committed = await readFile(clientFiles[name], 'utf8').catch(() => '')
    assert.ok(
      committed === expected[name],
      `${clientFiles[name]} is out of date (${firstDifference(committed, expected[name])}): run \`npm run client:generate\` and commit the result`,
    )
  })
}

test('the snapshot names no machine: its server is relative, whatever PUBLIC_BASE_URL generated it', () => {
  const document = JSON.parse(expected.document) as { servers: { url: string }[] }
  assert.deepEqual(
    document.servers.map((server) => server.url),
    ['/'],
  )
  assert.ok(!expected.document.includes(snapshotBaseUrl), `${snapshotBaseUrl} appears nowhere in it`)
})
