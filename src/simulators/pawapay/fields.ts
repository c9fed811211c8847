import { type Refusal, technical } from './errors.ts'

/** A checked value, or the refusal that ends the request. */
export type Checked<T> = { readonly value: T; readonly refusal?: undefined } | { readonly refusal: Refusal }

export type JsonObject = Record<string, unknown>

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** A body that is not a JSON object is INVALID_INPUT: "We were unable to parse the payload". */
export function parseObject(raw: string): Checked<JsonObject> {
  let parsed: unknown
  try {
    parsed = JSON.parse(raw)
  } catch {
    return { refusal: technical.invalidInput() }
  }
  return isObject(parsed) ? { value: parsed } : { refusal: technical.invalidInput() }
}

/** The first field outside `allowed` is UNSUPPORTED_PARAMETER, named by its path. */
export function unsupportedField(body: JsonObject, allowed: readonly string[], at = ''): Refusal | undefined {
  const extra = Object.keys(body).find((name) => !allowed.includes(name))
  return extra === undefined ? undefined : technical.unsupportedParameter(`${at}${extra}`)
}

/** A mandatory string: absent (or null) is MISSING_PARAMETER, another type INVALID_PARAMETER. */
export function requiredString(body: JsonObject, name: string, at = ''): Checked<string> {
  const value = body[name]
  if (value === undefined || value === null) return { refusal: technical.missingParameter(`${at}${name}`) }
  if (typeof value !== 'string') {
    return { refusal: technical.invalidParameter(`${at}${name}`, 'it must be a string.') }
  }
  return { value }
}

export function optionalString(body: JsonObject, name: string): Checked<string | undefined> {
  const value = body[name]
  if (value === undefined || value === null) return { value: undefined }
  if (typeof value !== 'string') return { refusal: technical.invalidParameter(name, 'it must be a string.') }
  return { value }
}

/** A mandatory object (payer, recipient, accountDetails). */
export function requiredObject(body: JsonObject, name: string, at = ''): Checked<JsonObject> {
  const value = body[name]
  if (value === undefined || value === null) return { refusal: technical.missingParameter(`${at}${name}`) }
  if (!isObject(value))
    return { refusal: technical.invalidParameter(`${at}${name}`, 'it must be an object.') }
  return { value }
}
