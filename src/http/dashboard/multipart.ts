import { PassThrough, pipeline, type Readable } from 'node:stream'

/** The boundary a multipart/form-data content type names, or undefined. */
export function boundaryOf(contentType: string): string | undefined {
  const found = /boundary=(?:"([^"]{1,70})"|([^;\s]{1,70}))/i.exec(contentType)
  return found?.[1] ?? found?.[2]
}

/**
 * The text fields and files of a multipart/form-data body (RFC 7578), as the dashboard's own
 * forms send them: a file is read as UTF-8 text, or, named in `bytesFields`, kept byte for byte
 * (each byte one latin1 character: `Buffer.from(value, 'latin1')` gives the bytes back).
 * Undefined when the body is not one.
 */
export function readMultipart(
  body: Buffer,
  contentType: string,
  bytesFields: readonly string[] = [],
): Record<string, string> | undefined {
  const boundary = boundaryOf(contentType)
  if (!boundary) return undefined
  // latin1 keeps every byte as one character, so the offsets found are the bytes' own.
  const text = body.toString('latin1')
  const delimiter = `--${boundary}`
  const chunks = text.split(delimiter)
  if (chunks.length < 3 || !chunks[chunks.length - 1]?.startsWith('--')) return undefined
  const fields: Record<string, string> = {}
  for (const chunk of chunks.slice(1, -1)) {
    const field = fieldOf(chunk, bytesFields)
    if (!field) return undefined
    fields[field.name] = field.value
  }
  return fields
}

/** One part between two delimiters: its name and its content, or undefined when it is not a form field. */
function fieldOf(
  chunk: string,
  bytesFields: readonly string[] = [],
): { name: string; value: string } | undefined {
  const part = chunk.startsWith('\r\n') ? chunk.slice(2) : chunk
  const headerEnd = part.indexOf('\r\n\r\n')
  if (headerEnd < 0) return undefined
  const name = /;\s*name="([^"]*)"/i.exec(part.slice(0, headerEnd))?.[1]
  if (name === undefined) return undefined
  const content = part.slice(headerEnd + 4, part.endsWith('\r\n') ? -2 : undefined)
  return {
    name,
    value: bytesFields.includes(name) ? content : Buffer.from(content, 'latin1').toString('utf8'),
  }
}

/** What readFirstField read: the first field, when its part was whole within the bound, and a stream of the whole body. */
export interface FirstField {
  field: { name: string; value: string } | undefined
  /** Every byte of the body, those already read first: what the body's parser then reads instead. */
  replay(): Readable
}

/**
 * Reads a multipart body only as far as its first part (at most `limitBytes`), so that a form's
 * first field (the dashboard's CSRF token) can be checked before the rest is read.
 */
export function readFirstField(payload: Readable, boundary: string, limitBytes: number): Promise<FirstField> {
  const delimiter = `--${boundary}`
  return new Promise((resolve) => {
    const read: Buffer[] = []
    const finish = (field: FirstField['field']) => {
      payload.off('data', onData)
      payload.off('end', onEnd)
      payload.off('error', onEnd)
      payload.pause()
      resolve({ field, replay: () => replayed(read, payload) })
    }
    const firstPart = () => {
      const text = Buffer.concat(read).subarray(0, limitBytes).toString('latin1')
      if (!text.startsWith(`${delimiter}\r\n`)) return { whole: text.length >= delimiter.length + 2 }
      const end = text.indexOf(`\r\n${delimiter}`, delimiter.length)
      return end < 0
        ? { whole: false }
        : { whole: true, field: fieldOf(text.slice(delimiter.length, end + 2)) }
    }
    const onData = (chunk: Buffer) => {
      read.push(chunk)
      const { whole, field } = firstPart()
      if (whole || read.reduce((bytes, piece) => bytes + piece.length, 0) >= limitBytes) finish(field)
    }
    const onEnd = () => finish(firstPart().field)
    payload.on('data', onData)
    payload.on('end', onEnd)
    payload.on('error', onEnd)
  })
}

/** The bytes already read, then the rest of `payload` as it arrives. */
function replayed(read: Buffer[], payload: Readable): Readable {
  const body = new PassThrough()
  for (const chunk of read) body.write(chunk)
  if (payload.readableEnded) body.end()
  else pipeline(payload, body, () => {})
  return body
}
