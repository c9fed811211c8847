import { connect } from 'node:net'

/** The boundary of the multipart bodies these helpers write. */
export const boundary = 'sikaBoundary7MA4YWxk'
/** The size the bodies announce: the dashboard's largest upload. */
export const uploadBytes = 2 * 1024 * 1024

/** A multipart body whose first field is `csrf` (when given), padded with a file to `bytes`. */
export function multipartBody(bytes: number, csrf?: string): Buffer {
  const head = [
    ...(csrf === undefined ? [] : [`--${boundary}`, 'Content-Disposition: form-data; name="csrf"', '', csrf]),
    `--${boundary}`,
    'Content-Disposition: form-data; name="file"; filename="batch.csv"',
    'Content-Type: text/csv',
    '',
    '',
  ].join('\r\n')
  const tail = `\r\n--${boundary}--\r\n`
  const filler = 'x'.repeat(Math.max(0, bytes - Buffer.byteLength(head) - Buffer.byteLength(tail)))
  return Buffer.from(head + filler + tail)
}

/**
 * A POST whose headers announce a 2 MiB multipart body, of which only the first `sentBytes` are
 * sent: the status line the server answers with, or 'no answer' after `waitMs` (it waits for the rest).
 */
export function postWithoutTheBody(
  url: string,
  path: string,
  options: { cookie?: string; origin?: string; csrf?: string; sentBytes: number },
  waitMs = 3000,
): Promise<{ status: number | 'no answer'; location: string | undefined; ms: number }> {
  const { port } = new URL(url)
  const body = multipartBody(uploadBytes, options.csrf)
  const headers = [
    `POST ${path} HTTP/1.1`,
    `host: 127.0.0.1:${port}`,
    `content-type: multipart/form-data; boundary=${boundary}`,
    `content-length: ${body.length}`,
    ...(options.cookie ? [`cookie: ${options.cookie}`] : []),
    ...(options.origin ? [`origin: ${options.origin}`] : []),
    '',
    '',
  ].join('\r\n')
  const started = performance.now()
  return new Promise((resolve) => {
    const socket = connect(Number(port), '127.0.0.1')
    let answer = ''
    const done = (status: number | 'no answer') => {
      clearTimeout(timer)
      socket.destroy()
      resolve({
        status,
        location: /\r\nlocation: ([^\r]+)/i.exec(answer)?.[1],
        ms: performance.now() - started,
      })
    }
    const timer = setTimeout(() => done('no answer'), waitMs)
    socket.on('error', () => {})
    socket.on('data', (chunk) => {
      answer += chunk.toString('latin1')
      const status = /^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1]
      if (status && answer.includes('\r\n\r\n')) done(Number(status))
    })
    socket.write(headers)
    socket.write(body.subarray(0, options.sentBytes))
  })
}
