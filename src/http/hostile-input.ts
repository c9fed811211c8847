import type { FastifyInstance } from 'fastify'
import { ApiError, type FieldError, validationFailed } from '../errors.ts'
import { describeJsonFault } from './json-fault.ts'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** An empty `application/json` body is read as `{}` rather than refused (a route whose body is optional). */
    emptyBodyAsObject?: boolean
  }
}

/**
 * Input that no store can hold faithfully is refused before anything reads it: a NUL
 * (PostgreSQL's text cannot hold one) and a lone surrogate (not Unicode: SQLite stores it as
 * invalid UTF-8, PostgreSQL as U+FFFD, so two references would become one). And a JSON body
 * that says one key twice is refused rather than silently taking the last value.
 */
export function refuseHostileInput(app: FastifyInstance, bodyLimit: number): void {
  const parseJson = app.getDefaultJsonParser('error', 'error')
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit }, (request, body, done) => {
    // A route whose body is optional (a cancel, a close) reads an empty JSON body as `{}`.
    if (body === '' && request.routeOptions.config.emptyBodyAsObject) return done(null, {})
    const problem = jsonTextProblem(body as string)
    if (problem) return done(new ApiError('invalid_json', problem), undefined)
    return parseJson(request, body as string, (error, parsed) => {
      // Fastify's parser drops the position of the fault: it is found again, on this error path only.
      const fault =
        (error as { code?: string } | null)?.code === invalidJsonCode && describeJsonFault(body as string)
      return fault ? done(new ApiError('invalid_json', fault), undefined) : done(error, parsed)
    })
  })
  app.addHook('preValidation', (request, _reply, done) => {
    const errors = unsafeTextIn(request.query, '')
    if (typeof request.body === 'object') unsafeTextIn(request.body, '', errors)
    done(errors.length > 0 ? validationFailed(errors) : undefined)
  })
}

/** Fastify's refusal of a body that does not parse (or that parses to a key poisoning prototypes). */
const invalidJsonCode = 'FST_ERR_CTP_INVALID_JSON_BODY'

/** A NUL, or half of a surrogate pair without its other half. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the NUL is what is refused
const unsafeCharacter = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

/** Every string (and key) of a parsed body or query that holds an unsafe character, by its path. */
function unsafeTextIn(value: unknown, path: string, found: FieldError[] = []): FieldError[] {
  if (typeof value === 'string') {
    if (unsafeCharacter.test(value)) found.push(unsafeText(path || 'body'))
  } else if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) unsafeTextIn(item, `${path}[${index}]`, found)
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      const field = path ? `${path}.${key}` : key
      if (unsafeCharacter.test(key)) found.push(unsafeText(field))
      else unsafeTextIn(item, field, found)
    }
  }
  return found
}

/** The field's name as it can be shown: its own unsafe characters replaced. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the NUL is what is replaced
const shown = (field: string) => field.replace(/[\u0000\ud800-\udfff]/g, '\ufffd')

const unsafeText = (field: string): FieldError => ({
  field: shown(field),
  code: 'invalid_characters',
  message: `${shown(field)} must not contain NUL characters or unpaired UTF-16 surrogates.`,
})

type Container = { keys: Set<string>; path: string } | { path: string; keys?: undefined }

/** No request of this API nests more than a few levels; a body nesting deeper is refused before it is walked. */
export const maxJsonDepth = 32

/** Why a JSON body is refused before it is even parsed, as a sentence for the caller; undefined when it is not. */
export function jsonTextProblem(text: string): string | undefined {
  const problem = scanJsonText(text)
  if (!problem) return undefined
  return problem.kind === 'repeated'
    ? `The request body gives ${problem.key} twice; send each key once.`
    : `The request body nests deeper than ${maxJsonDepth} levels; no request of this API nests more than 3.`
}

/**
 * One pass over the text, keeping the open objects and arrays; strings are skipped whole, so
 * their content never counts. The text is checked before it is parsed, so it may be malformed:
 * then the parser answers.
 */
function scanJsonText(text: string): { kind: 'repeated'; key: string } | { kind: 'too-deep' } | undefined {
  const open: Container[] = []
  let expectingKey = false
  let lastKey = ''
  const childPath = () => {
    const parent = open.at(-1)
    if (!parent) return ''
    const name = parent.keys ? lastKey : '[]'
    return parent.path ? `${parent.path}.${name}` : name
  }
  for (let index = 0; index < text.length; index++) {
    const character = text[index]
    if (character === '"') {
      const end = endOfString(text, index)
      const current = open.at(-1)
      if (expectingKey && current?.keys) {
        const key = safeDecode(text.slice(index, end + 1))
        if (current.keys.has(key))
          return { kind: 'repeated', key: `"${current.path ? `${current.path}.` : ''}${key}"` }
        current.keys.add(key)
        lastKey = key
      }
      expectingKey = false
      index = end
    } else if (character === '{' || character === '[') {
      if (open.length >= maxJsonDepth) return { kind: 'too-deep' }
      open.push(character === '{' ? { keys: new Set(), path: childPath() } : { path: childPath() })
      expectingKey = character === '{'
    } else if (character === '}' || character === ']') {
      open.pop()
    } else if (character === ',') {
      expectingKey = open.at(-1)?.keys !== undefined
    }
  }
  return undefined
}

/** The index of the quote that closes the string opening at `start`. */
function endOfString(text: string, start: number): number {
  let index = start + 1
  while (index < text.length && text[index] !== '"') index += text[index] === '\\' ? 2 : 1
  return index
}

function safeDecode(literal: string): string {
  try {
    return JSON.parse(literal) as string
  } catch {
    return literal
  }
}
