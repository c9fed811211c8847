import assert from 'node:assert/strict'
import type { IssuedMerchant } from '../../src/app/merchants.ts'
import type { ApiClient, TestApp } from './app.ts'

/** Operations through the public API, as a merchant's own code makes and reads them. */

/** A new merchant and a client holding its sandbox keys. */
export async function merchantWithClient(
  app: TestApp,
): Promise<{ merchant: IssuedMerchant; client: ApiClient }> {
  const merchant = await app.createMerchant()
  return { merchant, client: app.client(merchant.sandbox) }
}

/** Initiates an operation that must be accepted, and returns its record. */
export async function initiate(client: ApiClient, kind: string, body: unknown) {
  const response = await client.post(`/api/v1/${kind}`, body)
  assert.equal(response.status, 200, response.text)
  return response.body.data[kind]
}

/** The record GET /api/v1/{kind}/{token} returns. */
export async function details(client: ApiClient, kind: string, token: string) {
  const response = await client.get(`/api/v1/${kind}/${token}`)
  assert.equal(response.status, 200, response.text)
  return response.body.data[kind]
}

/** How many of the merchant's operations are still pending, read from the store. */
export async function pendingCount(app: TestApp, merchantId: string): Promise<number> {
  const { count } = await app.db
    .selectFrom('operations')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('merchant_id', '=', merchantId)
    .where('status', '=', 'pending')
    .executeTakeFirstOrThrow()
  return Number(count)
}
