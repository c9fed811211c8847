/**
 * RFC 4180 text: fields joined by commas, lines ended by CRLF; a field holding a comma, a quote,
 * a CR or an LF is quoted, its quotes doubled. null and undefined are empty fields.
 */
export function csvLine(values: readonly unknown[]): string {
  return `${values.map(csvField).join(',')}\r\n`
}

function csvField(value: unknown): string {
  if (value === null || value === undefined) return ''
  const text = String(value)
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text
}
