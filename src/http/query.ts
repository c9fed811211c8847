import { parseTimestamp } from '../domain/clock.ts'
import { type FieldError, validationFailed } from '../errors.ts'

/** Parses the `from` and `to` list filters; a date that does not parse is a 422 naming it. */
export function dateRange(
  from: string | undefined,
  to: string | undefined,
): { fromUs?: number; toUs?: number } {
  const errors: FieldError[] = []
  const parse = (field: string, value: string | undefined) => {
    if (value === undefined) return undefined
    const timeUs = parseTimestamp(value)
    if (timeUs === undefined) {
      errors.push({
        field,
        code: 'invalid_format',
        message: `${field} must be an ISO 8601 date or date-time, such as 2026-11-21T00:00:00Z.`,
      })
    }
    return timeUs
  }
  const fromUs = parse('from', from)
  const toUs = parse('to', to)
  if (errors.length > 0) throw validationFailed(errors)
  return { fromUs, toUs }
}
