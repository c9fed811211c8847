import { createHash } from 'node:crypto'
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import { errorRegistry } from '../../src/errors.ts'
import { ErrorEnvelope } from '../../src/http/schemas.ts'

/**
 * Every response the suite receives through apiClient is held against the OpenAPI document the
 * server itself publishes: what the server sends and what it documents cannot drift apart unseen.
 */

/** What the hook saw of one exchange. */
export interface ObservedResponse {
  method: string
  /** As requested: the path, with its query string if any. */
  path: string
  status: number
  contentType: string | null
  text: string
}

export type CheckOutcome =
  /** Matched a documented operation and response; its body validated against that schema. */
  | 'documented'
  /** An undocumented route answered with a JSON error: validated against the error envelope. */
  | 'error-envelope'
  /** An undocumented route answering something other than a JSON error (a page, /openapi.json). */
  | 'skipped'

/** How many responses the hook checked, by outcome: a test asserts it moves, so it cannot be off. */
export const responseChecks: Record<CheckOutcome, number> = { documented: 0, 'error-envelope': 0, skipped: 0 }

/**
 * Discrepancies known and reported but not fixed yet: each entry lets exactly one
 * (method, path template, status) through, and names why. Keep it empty.
 */
export const knownMismatches: readonly {
  method: string
  pathTemplate: string
  status: number
  why: string
}[] = []

export class OpenApiMismatch extends Error {
  override name = 'OpenApiMismatch'
}

type JsonObject = Record<string, any>

export interface LoadedDocument {
  readonly document: JsonObject
  readonly ajv: Ajv2020
  /** Path templates, literal ones first, each with the pattern that matches its concrete paths. */
  readonly templates: readonly { template: string; pattern: RegExp }[]
  readonly validators: Map<string, ValidateFunction<JsonObject>>
}

const documentKey = 'sika-openapi.json'
// ajv-formats is CommonJS: under NodeNext its default import is the function itself.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default

const documentsByUrl = new Map<string, Promise<LoadedDocument>>()
/** Keyed by a digest of the text: the apps of one test file publish the same document, compiled once. */
const documentsByText = new Map<string, LoadedDocument>()

function createAjv(): Ajv2020 {
  // strict off: the document's schemas carry OpenAPI keywords (example) that JSON Schema does not know.
  const ajv = new Ajv2020({ strict: false, allErrors: true })
  addFormats(ajv)
  return ajv
}

const envelopeAjv = createAjv()
const validateErrorEnvelope = envelopeAjv.compile<JsonObject>(ErrorEnvelope as object)

/** The document served at `${baseUrl}/openapi.json`, fetched once per server. */
export function documentFor(baseUrl: string): Promise<LoadedDocument> {
  let loaded = documentsByUrl.get(baseUrl)
  if (!loaded) {
    loaded = fetchDocument(baseUrl)
    documentsByUrl.set(baseUrl, loaded)
    // A failed fetch is not remembered: the next response tries again.
    loaded.catch(() => documentsByUrl.delete(baseUrl))
  }
  return loaded
}

async function fetchDocument(baseUrl: string): Promise<LoadedDocument> {
  const response = await fetch(`${baseUrl}/openapi.json`)
  const text = await response.text()
  if (response.status !== 200) {
    throw new Error(`GET ${baseUrl}/openapi.json answered ${response.status}: ${text.slice(0, 500)}`)
  }
  const digest = createHash('sha256').update(text).digest('hex')
  const known = documentsByText.get(digest)
  if (known) return known
  const loaded = loadDocument(JSON.parse(text) as JsonObject)
  documentsByText.set(digest, loaded)
  return loaded
}

/** Prepares a document for checking: its own refs resolve against it, as in the published file. */
export function loadDocument(document: JsonObject): LoadedDocument {
  const ajv = createAjv()
  ajv.addSchema(document, documentKey)
  const templates = Object.keys(document.paths ?? {})
    .map((template) => ({ template, pattern: templatePattern(template) }))
    .sort((a, b) => parameterCount(a.template) - parameterCount(b.template))
  return { document, ajv, templates, validators: new Map() }
}

const parameterCount = (template: string) => (template.match(/\{[^}]+\}/g) ?? []).length

function templatePattern(template: string): RegExp {
  const source = template
    .split(/(\{[^}]+\})/)
    .map((part) => (/^\{[^}]+\}$/.test(part) ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('')
  return new RegExp(`^${source}$`)
}

/** The documented path template a concrete path belongs to, if any. */
export function matchTemplate(loaded: LoadedDocument, path: string): string | undefined {
  let pathname = path.split(/[?#]/)[0] ?? '/'
  // The router ignores a trailing slash: /api/v1/collect/ is /api/v1/collect.
  if (pathname.length > 1 && pathname.endsWith('/')) pathname = pathname.slice(0, -1)
  return loaded.templates.find(({ pattern }) => pattern.test(pathname))?.template
}

const pointerSegment = (segment: string) =>
  encodeURIComponent(segment.replaceAll('~', '~0').replaceAll('/', '~1'))

/** A validator for the schema at a JSON pointer of the document, e.g. a response's body schema. */
export function validatorAt(loaded: LoadedDocument, segments: string[]): ValidateFunction<JsonObject> {
  const pointer = segments.map(pointerSegment).join('/')
  let validate = loaded.validators.get(pointer)
  if (!validate) {
    validate = loaded.ajv.compile<JsonObject>({ $ref: `${documentKey}#/${pointer}` })
    loaded.validators.set(pointer, validate)
  }
  return validate
}

const isJson = (contentType: string | null) => /^application\/([\w.+-]+\+)?json\b/i.test(contentType ?? '')

/**
 * Checks one response against the document of the server that sent it; throws an
 * OpenApiMismatch naming method, path, status, what disagrees and the body.
 */
export async function checkResponse(baseUrl: string, observed: ObservedResponse): Promise<CheckOutcome> {
  const outcome = checkAgainst(await documentFor(baseUrl), observed)
  responseChecks[outcome] += 1
  return outcome
}

export function checkAgainst(loaded: LoadedDocument, observed: ObservedResponse): CheckOutcome {
  const method = observed.method.toLowerCase()
  // A HEAD answer carries the headers of the GET and no body: there is nothing to validate.
  if (method === 'head') return 'skipped'
  const template = matchTemplate(loaded, observed.path)
  const operation = template ? loaded.document.paths[template]?.[method] : undefined
  if (!template || !operation) return checkUndocumented(observed)
  if (knownMismatchFor(observed.method, template, observed.status)) return 'documented'

  const fail: Fail = (problem, errors) => {
    throw mismatch(observed, `${operation.operationId ?? `${method} ${template}`}: ${problem}`, errors)
  }
  const responses = (operation.responses ?? {}) as JsonObject
  const statusKey = [String(observed.status), `${String(observed.status)[0]}XX`, 'default'].find(
    (key) => key in responses,
  )
  if (!statusKey) {
    return fail(
      `status ${observed.status} is not documented (documented: ${Object.keys(responses).join(', ')})`,
    )
  }
  const content = responses[statusKey].content as JsonObject | undefined
  if (!content || Object.keys(content).length === 0) {
    if (observed.text.length > 0) fail(`responses.${statusKey} documents no body, but one was sent`)
    return 'documented'
  }
  const mediaType = Object.keys(content).find((type) => isJson(type))
  if (!mediaType) {
    // A documented non-JSON answer (a CSV statement): its content type must be one documented.
    const sent = observed.contentType?.split(';')[0]?.trim()
    if (!sent || !Object.hasOwn(content, sent))
      fail(
        `responses.${statusKey} is ${Object.keys(content).join(', ')}, but the content-type is ${observed.contentType ?? 'absent'}`,
      )
    return 'documented'
  }
  if (!isJson(observed.contentType)) {
    fail(
      `responses.${statusKey} is ${mediaType}, but the content-type is ${observed.contentType ?? 'absent'}`,
    )
  }
  const body = parseJson(observed, fail)
  const schemaPath = ['paths', template, method, 'responses', statusKey, 'content', mediaType, 'schema']
  const validate = validatorAt(loaded, schemaPath)
  if (!validate(body))
    fail(`the body does not match responses.${statusKey}.content.${mediaType}.schema`, validate.errors)
  if (observed.status >= 400) checkErrorCode(observed, body, fail)
  return 'documented'
}

type Fail = (problem: string, errors?: ErrorObject[] | null) => never

/** Undocumented routes (pages, /providers/*, 404 and 405 answers) owe only the error envelope. */
function checkUndocumented(observed: ObservedResponse): CheckOutcome {
  if (observed.status < 400 || !isJson(observed.contentType)) return 'skipped'
  const fail: Fail = (problem, errors) => {
    throw mismatch(observed, problem, errors)
  }
  const body = parseJson(observed, fail)
  if (!validateErrorEnvelope(body)) {
    fail(
      'the JSON error body does not match ErrorEnvelope (src/http/schemas.ts)',
      validateErrorEnvelope.errors,
    )
  }
  checkErrorCode(observed, body, fail)
  return 'error-envelope'
}

/** CONTRACT.md, Errors: statusCode repeats the HTTP status, and the code is the registry's for it. */
function checkErrorCode(observed: ObservedResponse, body: JsonObject, fail: Fail): void {
  if (body.statusCode !== observed.status) {
    fail(`the envelope's statusCode ${body.statusCode} is not the HTTP status ${observed.status}`)
  }
  const entry = (errorRegistry as Record<string, { status: number }>)[body.code]
  if (entry?.status !== observed.status) {
    fail(`the code ${body.code} is ${entry ? `the registry's ${entry.status}` : 'not in the error registry'}`)
  }
}

function parseJson(observed: ObservedResponse, fail: Fail): any {
  try {
    return JSON.parse(observed.text)
  } catch {
    return fail('the body is not JSON')
  }
}

function knownMismatchFor(method: string, template: string, status: number) {
  return knownMismatches.find(
    (entry) =>
      entry.method === method.toUpperCase() && entry.pathTemplate === template && entry.status === status,
  )
}

function mismatch(
  observed: ObservedResponse,
  problem: string,
  errors?: ErrorObject[] | null,
): OpenApiMismatch {
  const details = (errors ?? [])
    .map(
      (error) =>
        `  ${error.instancePath || '(body)'} ${error.message} [${error.schemaPath}] ${JSON.stringify(error.params)}`,
    )
    .join('\n')
  const body = observed.text.length > 4000 ? `${observed.text.slice(0, 4000)}...` : observed.text
  return new OpenApiMismatch(
    `The response does not match the OpenAPI document: ${observed.method} ${observed.path} -> ${observed.status}\n` +
      `${problem}\n${details ? `${details}\n` : ''}body: ${body}`,
  )
}
