// Regenerates the typed client's committed files from the running schemas: `npm run client:generate`.
// With --check it writes nothing and exits 1 when the committed files differ from what the schemas produce.
import { readFile, writeFile } from 'node:fs/promises'
import { relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import openapiTS, { astToString, COMMENT_HEADER, type OpenAPI3 } from 'openapi-typescript'
import { createContext } from '../src/app/bootstrap.ts'
import { loadConfig } from '../src/config.ts'
import { operationKindNames, operationKinds } from '../src/domain/kinds.ts'
import { buildServer } from '../src/http/server.ts'
import { createLogger } from '../src/logger.ts'

/** The servers url of the committed snapshot: fixed, so the file does not depend on who generated it. */
export const snapshotBaseUrl = 'http://localhost:3000'

export const clientFiles = {
  document: fileURLToPath(new URL('../client/openapi.json', import.meta.url)),
  schema: fileURLToPath(new URL('../client/generated/schema.ts', import.meta.url)),
  dataKeys: fileURLToPath(new URL('../client/generated/data-keys.ts', import.meta.url)),
} as const

const repositoryRoot = fileURLToPath(new URL('..', import.meta.url))
const shown = (file: string) => relative(repositoryRoot, file)

export interface ClientFiles {
  /** client/openapi.json */
  document: string
  /** client/generated/schema.ts */
  schema: string
  /** client/generated/data-keys.ts */
  dataKeys: string
}

// biome-ignore lint/suspicious/noExplicitAny: a parsed JSON document, walked by path
type JsonObject = Record<string, any>

/** The key under `data` of an endpoint's 200 answer, read from the document. */
function dataKeyOf(document: OpenAPI3, path: string, method: 'get' | 'post'): string {
  const schema = (document.paths as JsonObject)?.[path]?.[method]?.responses?.['200']?.content?.[
    'application/json'
  ]?.schema as JsonObject | undefined
  const key = Object.keys(schema?.properties?.data?.properties ?? {})[0]
  if (!key) throw new Error(`the document gives no data key for ${method.toUpperCase()} ${path}`)
  return key
}

/**
 * Where each kind's record sits in `data` (created, details, list), read from the document at the
 * paths of the domain's kinds. The spec's own names, quirks included.
 */
function dataKeysModule(document: OpenAPI3): string {
  // The kinds are the domain's: a payout batch or a payment link has a details path too, but is no operation.
  const kinds = operationKindNames.map((kind) => operationKinds[kind].path)
  const paths = Object.keys(document.paths ?? {})
  const entries = kinds.map((kind) => {
    const base = `/api/v1/${kind}`
    // A kind initiated on another operation (a refund: POST /api/v1/collect/{token}/refund) is created there.
    const createdAt = paths.find((path) => path.endsWith(`/{token}/${kind}`)) ?? base
    const keys = {
      created: dataKeyOf(document, createdAt, 'post'),
      details: dataKeyOf(document, `${base}/{token}`, 'get'),
      list: dataKeyOf(document, base, 'get'),
    }
    const cancelable = paths.includes(`${base}/{token}/cancel`)
    return `  '${kind}': { created: '${keys.created}', details: '${keys.details}', list: '${keys.list}', initiatedAt: '${createdAt}', cancelable: ${cancelable} },`
  })
  return `// Generated from the OpenAPI document by \`npm run client:generate\`: do not edit.
/** Where each kind's record sits in \`data\`, where it is initiated and whether it can be canceled, as the document says. */
export const operationDataKeys = {
${entries.join('\n')}
} as const
`
}

/** The OpenAPI document as the routes describe it: built in memory, no port, no database file. */
export async function buildOpenApiDocument(): Promise<OpenAPI3> {
  const config = loadConfig({
    DATABASE_URL: ':memory:',
    PUBLIC_BASE_URL: snapshotBaseUrl,
    LOG_LEVEL: 'silent',
    SECRETS_KEY: '00'.repeat(32),
    WORKERS: 'off',
  })
  const context = await createContext(config, createLogger('silent'))
  try {
    const app = await buildServer(context)
    await app.ready()
    // A JSON round trip drops what JSON cannot hold, exactly as GET /openapi.json would.
    const document = JSON.parse(JSON.stringify(app.swagger())) as OpenAPI3
    await app.close()
    return document
  } finally {
    await context.store.close()
  }
}

/** The contents both committed files must have. */
export async function generateClientFiles(): Promise<ClientFiles> {
  const document = await buildOpenApiDocument()
  const ast = await openapiTS(document, { silent: true })
  return {
    document: `${JSON.stringify(document, null, 2)}\n`,
    schema: `${COMMENT_HEADER}${astToString(ast)}`,
    dataKeys: dataKeysModule(document),
  }
}

/** The committed files that differ from what the schemas produce (empty when in step). */
export async function staleClientFiles(): Promise<string[]> {
  const expected = await generateClientFiles()
  const stale: string[] = []
  for (const name of ['document', 'schema', 'dataKeys'] as const) {
    const committed = await readFile(clientFiles[name], 'utf8').catch(() => undefined)
    if (committed !== expected[name]) stale.push(clientFiles[name])
  }
  return stale
}

async function main(argv: string[]): Promise<number> {
  if (argv.includes('--check')) {
    const stale = await staleClientFiles()
    if (stale.length === 0) {
      console.log('client: the committed OpenAPI document and generated types are up to date')
      return 0
    }
    console.error(
      `client: out of date with the route schemas:\n${stale.map((file) => `  ${shown(file)}`).join('\n')}\n` +
        'run `npm run client:generate` and commit the result',
    )
    return 1
  }
  const files = await generateClientFiles()
  await writeFile(clientFiles.document, files.document)
  await writeFile(clientFiles.schema, files.schema)
  await writeFile(clientFiles.dataKeys, files.dataKeys)
  console.log(
    `client: wrote ${shown(clientFiles.document)}, ${shown(clientFiles.schema)} and ${shown(clientFiles.dataKeys)}`,
  )
  return 0
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.exitCode = await main(process.argv.slice(2))
}
