/**
 * RFC 4180 text: fields joined by commas, lines ended by CRLF; a field holding a comma, a quote,
 * a CR or an LF is quoted, its quotes doubled. null and undefined are empty fields.
 */
export function csvLine(values: readonly unknown[]): string {
  return `${values.map(csvField).join(',')}\r\n`
}

/**
 * A spreadsheet reads a cell starting with one of these as a formula (`=cmd|' /C calc'!A0`,
 * `@SUM(...)`): OWASP's CSV injection advice is to start such a text cell with a quote, which the
 * spreadsheet shows as text. Numbers are written as they are: -5 stays a number.
 */
const formulaStart = /^[=+\-@\t\r]/

function csvField(value: unknown): string {
  if (value === null || value === undefined) return ''
  const text = typeof value === 'string' && formulaStart.test(value) ? `'${value}` : String(value)
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text
}
