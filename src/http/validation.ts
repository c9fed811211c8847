import { Ajv, type ErrorObject } from 'ajv'
import addFormatsModule from 'ajv-formats'
import { fullFormats } from 'ajv-formats/dist/formats.js'
import type { FastifySchemaCompiler } from 'fastify'
import { parseHttpUrl } from '../domain/urls.ts'
import type { FieldError } from '../errors.ts'

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default

function createAjv(coerceTypes: boolean): Ajv {
  // allErrors: every field at fault is reported at once, not just the first. verbose: each error
  // carries its schema, so a refused value of a closed set is answered with the allowed values.
  const ajv = new Ajv({
    allErrors: true,
    verbose: true,
    coerceTypes,
    useDefaults: true,
    removeAdditional: false,
    strict: false,
  })
  addFormats(ajv)
  // A URL field must also be one delivery and the checkout can use: RFC 3986 alone lets through
  // hosts the WHATWG parser refuses (`http://256.0.0.1/`, `http://exa%20mple.com/`, `http://[v1.x]/`).
  ajv.addFormat('uri', (value: string) => isRfc3986Uri(value) && parseHttpUrl(value) !== undefined)
  return ajv
}

const isRfc3986Uri = fullFormats.uri as (value: string) => boolean

// Bodies are JSON and keep their types: "100" is not an amount. Query strings are text and
// are coerced ("?page=2").
const bodyAjv = createAjv(false)
const queryAjv = createAjv(true)

export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? bodyAjv : queryAjv).compile(schema)

/** AJV's errors as the contract's field errors: one entry per field, the first problem found. */
export function toFieldErrors(errors: readonly ErrorObject[], prefix = ''): FieldError[] {
  // A union of literals fails once per literal, then as a whole: the whole names every allowed value.
  const closedSets = errors.filter((error) => error.keyword === 'anyOf' && allowedValues(error) !== undefined)
  const byField = new Map<string, FieldError>()
  for (const error of errors) {
    if (closedSets.some((set) => error.schemaPath.startsWith(`${set.schemaPath}/`))) continue
    const entry = toFieldError(error, prefix)
    if (!byField.has(entry.field)) byField.set(entry.field, entry)
  }
  return [...byField.values()]
}

function toFieldError(error: ErrorObject, prefix: string): FieldError {
  // An array's element is named as in JavaScript: items[41].customer.phoneNumber.
  const path = error.instancePath
    .split('/')
    .filter(Boolean)
    .join('.')
    .replace(/\.(\d+)(?=\.|$)/g, '[$1]')
  const join = (name: string) => [prefix, path, name].filter(Boolean).join('.')
  const field = join('')
  const label = field || 'body'
  const params = error.params as Record<string, unknown>
  switch (error.keyword) {
    case 'required':
      return {
        field: join(String(params.missingProperty)),
        code: 'required',
        message: `${join(String(params.missingProperty))} is required.`,
      }
    case 'additionalProperties':
      return {
        field: join(String(params.additionalProperty)),
        code: 'unknown_field',
        message: `${join(String(params.additionalProperty))} is not a field of this request.`,
      }
    case 'type':
      return { field, code: 'invalid_type', message: `${label} must be ${article(String(params.type))}.` }
    case 'minLength':
      return params.limit === 1
        ? { field, code: 'required', message: `${label} must not be empty.` }
        : { field, code: 'too_short', message: `${label} must be at least ${params.limit} characters.` }
    case 'maxLength':
      return { field, code: 'too_long', message: `${label} must be at most ${params.limit} characters.` }
    case 'maxProperties':
      return { field, code: 'too_many', message: `${label} must have at most ${params.limit} keys.` }
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return {
        field,
        code: 'out_of_range',
        message: `${label} must be ${params.comparison} ${params.limit}.`,
      }
    case 'pattern':
    case 'format':
      return { field, code: 'invalid_format', message: `${label} ${formatHint(field)}.` }
    case 'anyOf':
    case 'enum':
    case 'const': {
      const allowed = allowedValues(error)
      return {
        field,
        code: 'invalid_value',
        message: allowed
          ? `${label} must be ${allowed.length === 1 ? allowed[0] : `one of ${allowed.join(', ')}`}.`
          : `${label} is not one of the allowed values.`,
      }
    }
    default:
      return { field, code: 'invalid', message: `${label} ${error.message ?? 'is not valid'}.` }
  }
}

/**
 * The values a closed set allows, read from the schema that refused the value: an enum, a const,
 * or a union whose every branch is one of those. Undefined for any other union.
 */
function allowedValues(error: ErrorObject): string[] | undefined {
  const params = error.params as Record<string, unknown>
  if (error.keyword === 'enum' && Array.isArray(params.allowedValues)) return params.allowedValues.map(String)
  if (error.keyword === 'const') return [String(params.allowedValue)]
  if (error.keyword !== 'anyOf' || !Array.isArray(error.schema)) return undefined
  const values: string[] = []
  for (const branch of error.schema as unknown[]) {
    const literals = literalsOf(branch)
    if (!literals) return undefined
    values.push(...literals)
  }
  return values.length > 0 ? values : undefined
}

function literalsOf(schema: unknown): string[] | undefined {
  if (typeof schema !== 'object' || schema === null) return undefined
  const { const: single, enum: several, type } = schema as { const?: unknown; enum?: unknown; type?: unknown }
  if (single !== undefined) return [String(single)]
  if (Array.isArray(several)) return several.map(String)
  // A nullable closed set: null is one of its values.
  if (type === 'null') return ['null']
  return undefined
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`
}

function formatHint(field: string): string {
  if (field.endsWith('phoneNumber')) return 'must be 8 to 15 digits, with an optional leading +'
  if (field.endsWith('email')) return 'must be a valid email address'
  if (field.endsWith('Url'))
    return 'must be an http(s) URL whose host is a name, an IPv4 address or an IPv6 address in brackets'
  if (field.endsWith('country')) return 'must be an ISO 3166-1 alpha-2 code in upper case, such as CI'
  if (field.endsWith('channel'))
    return 'must be a lower-case operator code, such as orange-money (GET /api/v1/channels lists them)'
  if (field.endsWith('merchantReference')) return 'must be printable characters'
  if (field.endsWith('statementDescriptor'))
    return 'must be 4 to 22 letters (A to Z, no accents), digits or spaces'
  if (field === 'token') return 'must be five groups of five lower-case letters and digits, joined by hyphens'
  return 'is not in the expected format'
}
