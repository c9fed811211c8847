import assert from 'node:assert/strict'
import type { ApiResponse } from './app.ts'

/** CONTRACT.md, Errors: the envelope every failure leaves in. */
export function assertErrorEnvelope(response: ApiResponse, status: number, code: string): void {
  assert.equal(response.status, status, response.text)
  assert.match(response.headers.get('content-type') ?? '', /^application\/json/)
  const { errors: _errors, ...body } = response.body ?? {}
  assert.deepEqual(Object.keys(body).sort(), ['code', 'message', 'requestId', 'statusCode', 'success'])
  assert.equal(body.success, false)
  assert.equal(body.statusCode, status)
  assert.equal(body.code, code)
  assert.equal(typeof body.message, 'string')
  assert.ok(body.message.length > 0, 'the message says what went wrong')
  assert.equal(body.requestId, response.headers.get('x-request-id'))
}
