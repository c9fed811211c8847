/**
 * The text fields and files of a multipart/form-data body (RFC 7578), as the dashboard's own
 * forms send them: a file is read as UTF-8 text. Undefined when the body is not one.
 */
export function readMultipart(body: Buffer, contentType: string): Record<string, string> | undefined {
  const found = /boundary=(?:"([^"]{1,70})"|([^;\s]{1,70}))/i.exec(contentType)
  const boundary = found?.[1] ?? found?.[2]
  if (!boundary) return undefined
  // latin1 keeps every byte as one character, so the offsets found are the bytes' own.
  const text = body.toString('latin1')
  const delimiter = `--${boundary}`
  const chunks = text.split(delimiter)
  if (chunks.length < 3 || !chunks[chunks.length - 1]?.startsWith('--')) return undefined
  const fields: Record<string, string> = {}
  for (const chunk of chunks.slice(1, -1)) {
    const part = chunk.startsWith('\r\n') ? chunk.slice(2) : chunk
    const headerEnd = part.indexOf('\r\n\r\n')
    if (headerEnd < 0) return undefined
    const name = /;\s*name="([^"]*)"/i.exec(part.slice(0, headerEnd))?.[1]
    if (name === undefined) return undefined
    const content = part.slice(headerEnd + 4, part.endsWith('\r\n') ? -2 : undefined)
    fields[name] = Buffer.from(content, 'latin1').toString('utf8')
  }
  return fields
}
