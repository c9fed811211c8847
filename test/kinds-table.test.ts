import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { IssuedMerchant } from '../src/app/merchants.ts'
import {
  initiationPathOf,
  isSingleSided,
  operationKindNames,
  operationKinds,
  refundedKindOf,
  sideKinds,
} from '../src/domain/kinds.ts'
import { openOperation } from '../src/domain/transitions.ts'
import { kindExamples } from '../src/http/examples.ts'
import { startApp, type TestApp } from './support/app.ts'
import { describeEachStore } from './support/stores.ts'

/**
 * The kinds table is the only source (issue 9): walking it, every kind has its three endpoints in
 * the published document under its data keys, its record shape follows from its sides, every
 * cash-out side is held at initiation, and its documented example is what the service answers.
 */

const varying = ['token', 'initiationDate', 'completionDate', 'merchantReference']

function comparable(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([key]) => !varying.includes(key)))
}

describeEachStore('the kinds table', (store) => {
  let app: TestApp
  let merchant: IssuedMerchant
  let document: any
  before(async () => {
    app = await startApp(store(), { environment: { RATE_LIMIT_PER_SECOND: '0' } })
    merchant = await app.createMerchant()
    document = await (await fetch(`${app.url}/openapi.json`)).json()
  })
  after(() => app?.close())

  for (const kind of operationKindNames) {
    const { path, dataKey, sides } = operationKinds[kind]

    test(`${kind}: three endpoints in the document, each answering under its data key`, () => {
      const dataOf = (operation: any) =>
        Object.keys(operation.responses['200'].content['application/json'].schema.properties.data.properties)
      const initiation = `/api/v1/${initiationPathOf(kind, '{token}')}`
      assert.deepEqual(dataOf(document.paths[initiation].post), [dataKey.created])
      assert.deepEqual(dataOf(document.paths[`/api/v1/${path}`].get), [dataKey.list])
      assert.deepEqual(dataOf(document.paths[`/api/v1/${path}/{token}`].get), [dataKey.details])
    })

    test(`${kind}: every cash-out side is held at initiation, and nothing else is`, () => {
      const example = kindExamples[kind].record as any
      const draftSides = sides.map(({ role, sideKind }) => ({
        role,
        kind: sideKind,
        cashAmountMinor: 100,
        status: 'pending',
      }))
      const opened = openOperation({ sides: draftSides, token: example.token } as never, {
        nowUs: 0,
        operationTtlMs: 1000,
        submissionGraceMs: 1000,
      })
      const held = opened.ledger.map((effect) => (effect.action === 'hold' ? effect.role : undefined))
      const cashOut = sides.filter(({ sideKind }) => sideKinds[sideKind].direction === 'cash-out')
      assert.deepEqual(
        held,
        cashOut.map(({ role }) => role),
      )
    })

    test(`${kind}: the documented example is what the service answers for its request`, async () => {
      const { request, record } = kindExamples[kind]
      const client = app.client(merchant.sandbox)
      // A kind that acts on another operation (a refund) is initiated on one made from that kind's example.
      const refundedKind = refundedKindOf(kind)
      let token = ''
      if (refundedKind) {
        const refunded = await client.post(`/api/v1/${operationKinds[refundedKind].path}`, {
          ...kindExamples[refundedKind].request,
          merchantReference: `table-${kind}-${refundedKind}`,
        })
        token = refunded.body.data[operationKinds[refundedKind].dataKey.created].token
      }
      const response = await client.post(`/api/v1/${initiationPathOf(kind, token)}`, {
        ...request,
        merchantReference: `table-${kind}`,
      })
      assert.equal(response.status, 200, response.text)
      const answered = response.body.data[dataKey.created]
      if (refundedKind) assert.equal(answered[refundedKind], token, `the refunded ${refundedKind}`)
      const without = (value: Record<string, unknown>) =>
        comparable(Object.fromEntries(Object.entries(value).filter(([key]) => key !== refundedKind)))
      assert.deepEqual(without(answered), without(record as Record<string, unknown>))
      const roles = sides.map((side) => side.role)
      if (isSingleSided(kind)) assert.equal(typeof answered.amount, 'number', 'a single side is flat')
      else for (const role of roles) assert.equal(typeof answered[role].amount, 'number', `${role} is nested`)
    })
  }
})
