// Run as a process of its own by test/dashboard/bodies-before-sign-in.test.ts, so that sending the
// bodies costs nothing in the process that measures the other merchant's answers.
// Arguments: the service's URL, the duration in ms, the multipart boundary, the body's size in
// bytes, then the paths: one client each, sending POST after POST without a session until the time
// is up. Prints one JSON line: the answers by status ("closed" when the server closed first).
import { request } from 'node:http'

const [url, durationText, boundary, bytesText, ...paths] = process.argv.slice(2)
const until = performance.now() + Number(durationText)
const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="batch.csv"\r\n\r\n`
const tail = `\r\n--${boundary}--\r\n`
const body = Buffer.from(head + 'x'.repeat(Number(bytesText) - head.length - tail.length) + tail)
const statuses = {}
const postOnce = (path) =>
  new Promise((resolve) => {
    const sent = request(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': body.length },
    })
    sent.on('response', (answer) => {
      answer.resume()
      answer.on('end', () => resolve(String(answer.statusCode)))
      answer.on('error', () => resolve(String(answer.statusCode)))
    })
    sent.on('error', () => resolve('closed'))
    sent.end(body)
  })
await Promise.all(
  paths.map(async (path) => {
    while (performance.now() < until) {
      const status = await postOnce(path)
      statuses[status] = (statuses[status] ?? 0) + 1
    }
  }),
)
process.stdout.write(`${JSON.stringify(statuses)}\n`)
