// Run as a process of its own by test/dashboard-exports-under-load.test.ts, so the exports' bytes
// are read outside the process that measures the other merchant's answers.
// Arguments: the service's URL, then a JSON array of { cookie, path }: one export each, all at once.
// Prints one JSON line: each export's status, the lines it read, its Retry-After, its duration.
const [url, exportsJson] = process.argv.slice(2)
const exports = JSON.parse(exportsJson)
const exportOnce = async ({ cookie, path }) => {
  const started = performance.now()
  const response = await fetch(`${url}${path}`, { headers: { cookie } })
  let lines = 0
  for await (const chunk of response.body) {
    const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)
    for (let at = bytes.indexOf(10); at !== -1; at = bytes.indexOf(10, at + 1)) lines += 1
  }
  return {
    status: response.status,
    lines,
    retryAfter: response.headers.get('retry-after'),
    durationMs: Math.round(performance.now() - started),
  }
}
const results = await Promise.all(exports.map(exportOnce))
process.stdout.write(`${JSON.stringify(results)}\n`)
