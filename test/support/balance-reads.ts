import assert from 'node:assert/strict'
import { Agent, request as undiciRequest } from 'undici'
import type { IssuedMerchant } from '../../src/app/merchants.ts'
import { sleep } from './wait.ts'

/**
 * A merchant reading its balance one request after another, 20 ms apart, for `durationMs`, as a
 * fairness test's other merchant: how many reads, their p50 and p99. Every read must answer 200.
 */
export async function balanceReadsFor(url: string, merchant: IssuedMerchant, durationMs: number) {
  const agent = new Agent({ connections: 1 })
  const headers = { 'api-key': merchant.sandbox.apiKey, 'secret-key': merchant.sandbox.secretKey }
  const latencies: number[] = []
  const startedAt = performance.now()
  try {
    while (performance.now() - startedAt < durationMs) {
      const sentAt = performance.now()
      const answer = await undiciRequest(`${url}/api/v1/balance`, { headers, dispatcher: agent })
      await answer.body.dump()
      assert.equal(answer.statusCode, 200)
      latencies.push(performance.now() - sentAt)
      await sleep(20)
    }
  } finally {
    await agent.close()
  }
  latencies.sort((x, y) => x - y)
  const at = (p: number) => Math.round(latencies[Math.ceil((p / 100) * latencies.length) - 1]!)
  return { reads: latencies.length, p50Ms: at(50), p99Ms: at(99) }
}
