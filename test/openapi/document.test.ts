import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { Validator } from '@seriousme/openapi-schema-validator'
import spectralCore from '@stoplight/spectral-core'
import spectralParsers from '@stoplight/spectral-parsers'
import spectralRulesets from '@stoplight/spectral-rulesets'
import { initiationPathOf, operationKindNames, operationKinds } from '../../src/domain/kinds.ts'
import { errorRegistry } from '../../src/errors.ts'
import { startApp, type TestApp } from '../support/app.ts'
import { loadDocument, validatorAt } from '../support/openapi-check.ts'
import { type Receiver, startReceiver } from '../support/receiver.ts'
import { describeEachStore } from '../support/stores.ts'

type JsonObject = Record<string, any>

/** Spectral's severities (DiagnosticSeverity of @stoplight/types): 0 is an error. */
const severityNames = ['error', 'warning', 'info', 'hint'] as const
const errorSeverity = 0

const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const

interface Operation {
  /** "POST /api/v1/collect", or "webhook POST operationStatus" */
  readonly name: string
  readonly path: string
  readonly method: string
  readonly operation: JsonObject
  readonly segments: readonly string[]
}

function operationsOf(document: JsonObject): Operation[] {
  const of = (section: 'paths' | 'webhooks', prefix: string) =>
    Object.entries((document[section] ?? {}) as JsonObject).flatMap(([path, item]) =>
      methods
        .filter((method) => item[method])
        .map((method) => ({
          name: `${prefix}${method.toUpperCase()} ${path}`,
          path,
          method,
          operation: item[method] as JsonObject,
          segments: [section, path, method],
        })),
    )
  return [...of('paths', ''), ...of('webhooks', 'webhook ')]
}

/** The codes an error response's schema allows: const, enum, or a union of either. */
function enumeratedCodes(schema: JsonObject | undefined): string[] | undefined {
  if (!schema) return undefined
  if (typeof schema.const === 'string') return [schema.const]
  if (Array.isArray(schema.enum)) return schema.enum
  const branches = schema.anyOf ?? schema.oneOf
  if (!Array.isArray(branches)) return undefined
  const codes = branches.map((branch: JsonObject) => enumeratedCodes(branch))
  return codes.every((entry) => entry !== undefined) ? codes.flat() : undefined
}

/**
 * Every field under a schema that has no description, by its path: the properties of objects,
 * through arrays, maps and unions ("data.collects[].pricing.supportedByAccount").
 */
function undescribedFields(schema: JsonObject | undefined, path: string): string[] {
  if (!schema || typeof schema !== 'object') return []
  const missing: string[] = []
  for (const [name, property] of Object.entries((schema.properties ?? {}) as JsonObject)) {
    const field = path ? `${path}.${name}` : name
    if (!String(property.description ?? '').trim()) missing.push(field)
    missing.push(...undescribedFields(property, field))
  }
  if (typeof schema.items === 'object') missing.push(...undescribedFields(schema.items, `${path}[]`))
  if (typeof schema.additionalProperties === 'object')
    missing.push(...undescribedFields(schema.additionalProperties, `${path}{}`))
  for (const branch of [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])])
    missing.push(...undescribedFields(branch, path))
  return missing
}

describeEachStore('the OpenAPI document', (store) => {
  let app: TestApp
  let document: JsonObject
  let documentText: string
  before(async () => {
    app = await startApp(store())
    const response = await fetch(`${app.url}/openapi.json`)
    assert.equal(response.status, 200)
    assert.match(response.headers.get('content-type') ?? '', /^application\/json/)
    documentText = await response.text()
    document = JSON.parse(documentText)
  })
  after(() => app.close())

  test('is a valid OpenAPI 3.1 document (@seriousme/openapi-schema-validator)', async () => {
    const validator = new Validator()
    const result = await validator.validate(structuredClone(document))
    assert.ok(result.valid, `the document is not valid OpenAPI:\n${JSON.stringify(result.errors, null, 2)}`)
    assert.equal(validator.version, '3.1')
  })

  test('Spectral\u2019s recommended OpenAPI ruleset (spectral:oas) finds no error', async (t) => {
    const spectral = new spectralCore.Spectral()
    spectral.setRuleset(spectralRulesets.oas as never)
    const results = await spectral.run(
      new spectralCore.Document(documentText, spectralParsers.Json, 'openapi.json'),
    )
    const describe = (result: (typeof results)[number]) =>
      `${result.code} at ${result.path.join('.')}: ${result.message}`
    for (const result of results.filter((entry) => entry.severity !== errorSeverity)) {
      t.diagnostic(`spectral ${severityNames[result.severity]}: ${describe(result)}`)
    }
    const errors = results.filter((entry) => entry.severity === errorSeverity)
    assert.deepEqual(errors.map(describe), [], 'Spectral (spectral:oas) finds no error')
  })

  test('every /api/v1 operation requires both the api-key and the secret-key headers', () => {
    const schemes = document.components?.securitySchemes ?? {}
    assert.deepEqual(
      { type: schemes.apiKey?.type, in: schemes.apiKey?.in, name: schemes.apiKey?.name },
      { type: 'apiKey', in: 'header', name: 'api-key' },
    )
    assert.deepEqual(
      { type: schemes.secretKey?.type, in: schemes.secretKey?.in, name: schemes.secretKey?.name },
      { type: 'apiKey', in: 'header', name: 'secret-key' },
    )
    const api = operationsOf(document).filter((entry) => entry.path.startsWith('/api/v1/'))
    assert.ok(api.length > 0)
    for (const { name, operation } of api) {
      // One requirement object naming both: OpenAPI ANDs the schemes of one object, ORs the objects.
      assert.deepEqual(operation.security, [{ apiKey: [], secretKey: [] }], name)
    }
  })

  test('every operation has a unique operationId, a summary and declared tags', () => {
    const declaredTags = new Set((document.tags ?? []).map((tag: JsonObject) => tag.name))
    const operationIds = new Set<string>()
    for (const { name, operation } of operationsOf(document)) {
      assert.match(operation.operationId ?? '', /^[a-zA-Z][a-zA-Z0-9]*$/, `${name} has an operationId`)
      assert.ok(
        !operationIds.has(operation.operationId),
        `${name}: operationId ${operation.operationId} is unique`,
      )
      operationIds.add(operation.operationId)
      assert.ok((operation.summary ?? '').trim().length > 0, `${name} has a summary`)
      assert.ok(Array.isArray(operation.tags) && operation.tags.length > 0, `${name} has tags`)
      for (const tag of operation.tags) assert.ok(declaredTags.has(tag), `${name}: tag ${tag} is declared`)
    }
  })

  test('every field has a description: parameters, request bodies, answers and the callback', () => {
    const missing: string[] = []
    for (const { name, operation } of operationsOf(document)) {
      for (const parameter of operation.parameters ?? []) {
        if (!String(parameter.description ?? parameter.schema?.description ?? '').trim())
          missing.push(`${name} ${parameter.in} parameter ${parameter.name}`)
      }
      for (const [type, media] of Object.entries((operation.requestBody?.content ?? {}) as JsonObject))
        missing.push(...undescribedFields(media.schema, '').map((field) => `${name} body (${type}) ${field}`))
      for (const [status, response] of Object.entries((operation.responses ?? {}) as JsonObject)) {
        for (const [type, media] of Object.entries((response.content ?? {}) as JsonObject))
          missing.push(
            ...undescribedFields(media.schema, '').map((field) => `${name} ${status} (${type}) ${field}`),
          )
      }
    }
    assert.deepEqual(missing, [], `${missing.length} fields have no description`)
  })

  test('every kind of the kinds table has its initiate, list and details operations', () => {
    for (const kind of operationKindNames) {
      const path = `/api/v1/${operationKinds[kind].path}`
      const initiation = `/api/v1/${initiationPathOf(kind, '{token}')}`
      assert.ok(document.paths[initiation]?.post, `POST ${initiation}`)
      assert.ok(document.paths[path]?.get, `GET ${path}`)
      assert.ok(document.paths[`${path}/{token}`]?.get, `GET ${path}/{token}`)
    }
  })

  test('every error response enumerates its codes, each the error registry\u2019s for that status', () => {
    const registry = errorRegistry as Record<string, { status: number }>
    const unenumerated: string[] = []
    // The webhook's responses are the merchant's answers to Sika, not Sika's errors.
    const served = operationsOf(document).filter(({ segments }) => segments[0] === 'paths')
    for (const { name, operation } of served) {
      for (const [status, response] of Object.entries(operation.responses as JsonObject)) {
        if (!/^[45]\d\d$/.test(status)) continue
        const schema = response.content?.['application/json']?.schema
        assert.ok(schema, `${name} ${status} has a JSON body`)
        for (const field of ['success', 'statusCode', 'code', 'message', 'requestId']) {
          assert.ok(schema.required?.includes(field), `${name} ${status}: the envelope requires ${field}`)
        }
        const codes = enumeratedCodes(schema.properties?.code)
        if (!codes) {
          unenumerated.push(`${name} ${status}`)
          continue
        }
        assert.ok(codes.length > 0, `${name} ${status} names at least one code`)
        for (const code of codes) {
          assert.equal(
            registry[code]?.status,
            Number(status),
            `${name} ${status}: ${code} is a ${status} code`,
          )
        }
      }
    }
    assert.deepEqual(unenumerated, [], 'these error responses do not enumerate their codes')
  })

  test('every initiation shows a request and a response example, each valid against its schema', () => {
    const loaded = loadDocument(document)
    const initiations = operationsOf(document).filter(
      ({ operation }) =>
        operation.requestBody?.content?.['application/json']?.schema?.properties?.merchantReference,
    )
    assert.deepEqual(
      initiations.map(({ name }) => name).sort(),
      [
        ...operationKindNames.map((kind) => `POST /api/v1/${initiationPathOf(kind, '{token}')}`),
        // Not an operation, but created under a merchantReference as one is.
        'POST /api/v1/payment-link',
        // A payout batch initiates many disbursements under its own merchantReference.
        'POST /api/v1/payout-batch',
      ].sort(),
    )
    for (const { name, segments, operation } of initiations) {
      const parts = [
        { where: ['requestBody'], media: operation.requestBody.content['application/json'] },
        { where: ['responses', '200'], media: operation.responses['200']?.content?.['application/json'] },
      ]
      for (const { where, media } of parts) {
        const examples = [
          ...(media?.example === undefined ? [] : [media.example]),
          ...Object.values((media?.examples ?? {}) as JsonObject).map((example) => example.value),
        ]
        assert.ok(examples.length > 0, `${name} ${where.join(' ')} has an example`)
        const validate = validatorAt(loaded, [...segments, ...where, 'content', 'application/json', 'schema'])
        for (const example of examples) {
          assert.ok(
            validate(example),
            `${name} ${where.join(' ')}: the example does not match its schema: ${JSON.stringify(validate.errors)}`,
          )
        }
      }
    }
  })

  test('webhooks describe the signed callback, and real callbacks match it', async () => {
    const webhook = Object.values((document.webhooks ?? {}) as JsonObject)[0]?.post
    assert.ok(webhook, 'a webhook with a POST operation')
    const headers = (webhook.parameters ?? [])
      .filter((parameter: JsonObject) => parameter.in === 'header' && parameter.required)
      .map((parameter: JsonObject) => parameter.name)
    assert.deepEqual(headers.sort(), ['webhook-id', 'webhook-signature', 'webhook-timestamp'])
    const schema = webhook.requestBody?.content?.['application/json']?.schema
    assert.deepEqual([...(schema?.required ?? [])].sort(), ['createdAt', 'data', 'id', 'mode', 'type'])
    const dataKeys = (schema.properties.data.anyOf ?? schema.properties.data.oneOf).flatMap(
      (branch: JsonObject) => branch.required,
    )
    assert.deepEqual(
      [...new Set(dataKeys)].sort(),
      // A payout batch's own events carry the batch under payoutBatch.
      [
        ...new Set([
          ...operationKindNames.map((kind) => operationKinds[kind].dataKey.details),
          'payoutBatch',
        ]),
      ].sort(),
    )
    assert.ok(
      Object.keys(webhook.responses ?? {}).some((status) => /^2/.test(status)),
      'a 2xx delivers',
    )
    assert.ok(webhook.responses?.['410'], '410 stops the deliveries')

    const receiver: Receiver = await startReceiver()
    try {
      const merchant = await app.createMerchant()
      const client = app.client(merchant.sandbox)
      const callbackUrl = receiver.url('/callbacks')
      const side = (phoneNumber: string) => ({
        amount: 1000,
        channel: 'orange-money',
        country: 'CI',
        customer: { phoneNumber },
      })
      const collect = await client.post('/api/v1/collect', {
        ...side('2250700000001'),
        merchantReference: 'webhook-collect',
        callbackUrl,
      })
      assert.equal(collect.status, 200, collect.text)
      const transfer = await client.post('/api/v1/transfer', {
        from: side('2250700000001'),
        to: side('2250700000002'),
        merchantReference: 'webhook-transfer',
        callbackUrl,
      })
      assert.equal(transfer.status, 200, transfer.text)
      await app.workers.runDue()
      const received = await receiver.waitFor(
        () => {
          const requests = receiver.requestsTo('/callbacks')
          return requests.length >= 4 && requests
        },
        10_000,
        'the pending and succeeded callbacks of both operations',
      )
      const validate = validatorAt(loadDocument(document), [
        'webhooks',
        Object.keys(document.webhooks)[0]!,
        'post',
        'requestBody',
        'content',
        'application/json',
        'schema',
      ])
      for (const request of received) {
        for (const header of headers) assert.ok(request.headers[header], `the callback carries ${header}`)
        const body = JSON.parse(request.body)
        assert.ok(validate(body), `${body.type}: ${JSON.stringify(validate.errors)}\n${request.body}`)
      }
    } finally {
      await receiver.close()
    }
  })
})
