import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { KeyPair } from '../../src/app/merchants.ts'
import {
  type RunningMtnMomoSimulator,
  startMtnMomoSimulator,
} from '../../src/simulators/mtn-momo/mtn-momo-simulator.ts'
import type { RecordedRequest } from '../../src/simulators/simulator.ts'
import { type RunningWaveSimulator, startWaveSimulator } from '../../src/simulators/wave/wave-simulator.ts'
import { type ApiClient, apiClient } from '../support/app.ts'
import { runSika } from '../support/cli.ts'
import {
  createMerchantWithCli,
  type GroupedService,
  openStoreReader,
  type StoreReader,
  startGroupedService,
  stopAllGroupedServices,
  writeOperatorsFile,
} from '../support/live-process.ts'
import { freePort } from '../support/process.ts'
import { describeEachStore } from '../support/stores.ts'
import { waitFor } from '../support/wait.ts'

/**
 * "SIGKILL of `sika serve` between the operator's acceptance and the outcome: after the restart
 * it resolves, and the money moves once." `sika serve` runs as a real process in its own process
 * group; the operators are simulators in this process, settling `settleDelayMs` after they accept.
 * Sika is killed once the operator has accepted the payment and the side is on record as submitted
 * (or right after the initiation's HTTP 200), before the outcome. While it is down the operator
 * settles and its one callback fails (MTN never retries one; Wave sends none for payouts). Sika is
 * started again on the same store, OPERATORS_FILE and PUBLIC_BASE_URL, and its scheduled poll must
 * resolve the operation: succeeded, one payment request at the operator, one balance movement,
 * its events once each, and `sika verify` clean.
 */

/** Long enough that the kill, which follows the acceptance within milliseconds, always lands first. */
const settleDelayMs = 1500
const mtnPhone = (ending: string) => `2250700000${ending}`
const wavePhone = (ending: string) => `+221770000${ending}`

type Kind = 'collect' | 'disbursement'

/** Where the operator is asked to move the money, and how the test reads what it did. */
interface Operator {
  readonly name: string
  /** The payment requests (POSTs) the operator received under this operator reference. */
  paymentRequests(reference: string): RecordedRequest[]
  /** The statuses the operator holds under this reference (one per payment), in its own words. */
  statuses(reference: string): string[]
  /** What the operator calls done. */
  readonly done: string
  /** Whether the operator has tried to tell Sika of the outcome, and failed: Sika was down. */
  outcomeToldWhileDown(token: string): boolean
}

describeEachStore('SIGKILL of sika serve between the operator’s acceptance and the outcome', (store) =>
  // Nested, so its `after` stops every process before the store's own `after` drops the database.
  describe('MTN MoMo and Wave, live', () => {
    let mtn: RunningMtnMomoSimulator
    let wave: RunningWaveSimulator
    let operators: ReturnType<typeof writeOperatorsFile> | undefined
    let environment: Record<string, string>
    let port: number
    let keys: KeyPair
    let reader: StoreReader
    let sequence = 0
    /** The `sika serve` now running, if any: each scenario kills it, and leaves its restart running. */
    let service: GroupedService | undefined
    const runningService = async () => {
      service ??= await startGroupedService(environment, port)
      return service
    }

    before(async () => {
      port = await freePort()
      const publicBaseUrl = `http://127.0.0.1:${port}`
      mtn = await startMtnMomoSimulator({ settleDelayMs })
      wave = await startWaveSimulator({
        settleDelayMs,
        payoutSettlement: 'asynchronous',
        webhookUrl: `${publicBaseUrl}/providers/wave/notifications`,
      })
      operators = writeOperatorsFile([
        { simulator: mtn, channel: 'mtn-momo', countries: ['CI'] },
        { simulator: wave, channel: 'wave', countries: ['SN'] },
      ])
      environment = {
        DATABASE_URL: store().databaseUrl,
        OPERATORS_FILE: operators.file,
        PUBLIC_BASE_URL: publicBaseUrl,
        RATE_LIMIT_PER_SECOND: '0',
      }
      keys = (await createMerchantWithCli(store().databaseUrl, 'Live crash merchant')).live
      reader = await openStoreReader(store())
      // The payouts are funded by earlier live collects, settled the ordinary way (MTN's callback).
      const client = apiClient((await runningService()).url, keys)
      const tokens = await Promise.all(
        ['123', '124', '125'].map(async (ending) => {
          const response = await initiate(client, 'collect', {
            amount: 10_000,
            channel: 'mtn-momo',
            country: 'CI',
            customer: { phoneNumber: mtnPhone(ending) },
          })
          assert.equal(response.status, 200, response.text)
          return response.body.data.collect.token as string
        }),
      )
      for (const token of tokens) {
        const record = await finalRecord(client, 'collect', token, 15_000)
        assert.equal(record.status, 'succeeded', JSON.stringify(record))
      }
      assert.equal((await xofBalance(client)).balance, 3 * 9850, 'funded by three live collects')
    })

    after(async () => {
      await stopAllGroupedServices()
      await reader?.close()
      await mtn?.close()
      await wave?.close()
      operators?.remove()
    })

    const initiate = (
      client: ApiClient,
      kind: Kind,
      side: Record<string, unknown>,
      merchantReference = `live-crash-${sequence++}`,
    ) =>
      client.post(`/api/v1/${kind}`, {
        ...side,
        merchantReference,
        callbackUrl: 'https://merchant.example/callback',
      })

    const mtnOperator = (kind: Kind): Operator => {
      const path = kind === 'collect' ? '/collection/v1_0/requesttopay' : '/disbursement/v1_0/transfer'
      return {
        name: 'MTN MoMo',
        paymentRequests: (reference) =>
          mtn.requests.filter(
            (request) =>
              request.method === 'POST' &&
              request.url === path &&
              request.headers['x-reference-id'] === reference,
          ),
        statuses: (reference) =>
          mtn
            .transactions()
            .filter((transaction) => transaction.referenceId === reference)
            .map((transaction) => transaction.status),
        done: 'SUCCESSFUL',
        // MTN sends its callback once and never again: it must have failed, Sika being down.
        outcomeToldWhileDown: (token) =>
          mtn.callbacks.some(
            (callback) => callback.url.includes(`token=${token}`) && callback.status === undefined,
          ),
      }
    }

    const waveOperator: Operator = {
      name: 'Wave',
      paymentRequests: (reference) =>
        wave.requests.filter(
          (request) =>
            request.method === 'POST' &&
            request.url === '/v1/payout' &&
            request.headers['idempotency-key'] === reference,
        ),
      statuses: (reference) =>
        wave
          .payouts()
          .filter((payout) => payout.idempotencyKey === reference)
          .map((payout) => String(payout.view.status)),
      done: 'succeeded',
      // Wave documents no payout webhook: the outcome only exists at Wave until Sika asks.
      outcomeToldWhileDown: () => true,
    }

    /**
     * The scenario: initiate on a first process, SIGKILL its group once the operator accepted
     * (`accepted`: the operator holds the request and the store the side as submitted) or once the
     * initiation was answered 200 (`answered`), let the operator settle while Sika is down, start
     * Sika again on the same store and port, and check that it resolved and moved the money once.
     */
    async function crashAndRestart(options: {
      kind: Kind
      side: Record<string, unknown>
      operator: Operator
      killWhen: 'accepted' | 'answered'
      diagnostic: (message: string) => void
    }): Promise<void> {
      const { kind, operator } = options
      const started = Date.now()
      const timings: string[] = []
      const mark = (what: string) => timings.push(`${what} +${Date.now() - started} ms`)
      let second: GroupedService | undefined
      const first = await runningService()
      mark('first ready')
      try {
        const client = apiClient(first.url, keys)
        const before = await xofBalance(client)
        const merchantReference = `live-crash-${sequence++}`
        const initiation = initiate(client, kind, options.side, merchantReference).then(
          (response) => response,
          () => undefined,
        )
        if (options.killWhen === 'answered') {
          const response = await initiation
          assert.ok(response, 'the initiation was answered')
          assert.equal(response.status, 200, response.text)
          assert.equal(response.body.data[kind].status, 'pending')
        } else {
          await waitFor(
            `${operator.name} to accept the payment and Sika to record it as submitted`,
            async () => {
              const side = (await reader.operation(merchantReference))?.sides[0]
              return (
                side?.submittedAtUs !== undefined &&
                side.operatorReference !== undefined &&
                operator.paymentRequests(side.operatorReference).length > 0
              )
            },
            10_000,
          )
        }
        await first.kill('SIGKILL')
        service = undefined
        mark('killed')
        const written = await reader.operation(merchantReference)
        assert.ok(written, 'the operation was written before the kill')
        const { token } = written
        const side = written.sides[0]!
        const reference = side.operatorReference!
        assert.equal(written.status, 'pending', 'killed before the outcome')
        assert.ok(side.submittedAtUs !== undefined, 'killed after the side was handed to the operator')
        assert.equal(operator.statuses(reference).length, 1, `${operator.name} holds the payment`)
        assert.notEqual(operator.statuses(reference)[0], operator.done, 'killed before the operator settled')
        if (options.killWhen === 'accepted') await initiation

        // While Sika is down, the operator settles the payment and fails to tell it.
        await waitFor(
          `${operator.name} to settle the payment while Sika is down`,
          () => operator.statuses(reference)[0] === operator.done && operator.outcomeToldWhileDown(token),
          settleDelayMs + 10_000,
        )
        mark('operator settled')

        second = await startGroupedService(environment, port)
        service = second
        mark('second ready')
        const restarted = apiClient(second.url, keys)
        const record = await finalRecord(restarted, kind, token, 20_000)
        mark('resolved')
        assert.equal(record.status, 'succeeded', JSON.stringify(record))
        assert.equal(
          operator.paymentRequests(reference).length,
          1,
          `${operator.name} was asked to move the money once: no second submission after the restart`,
        )
        assert.deepEqual(operator.statuses(reference), [operator.done], `${operator.name} moved it once`)

        const now = await xofBalance(restarted)
        const moved = kind === 'collect' ? record.cashAmount : -record.cashAmount
        assert.equal(now.balance - before.balance, moved, 'the balance moved once, by the cashAmount')
        assert.equal(now.held, before.held, 'no hold is left')
        const movements = (
          await restarted.get('/api/v1/transaction', { perPage: 100 })
        ).body.data.transactions.filter((entry: { token: string }) => entry.token === token)
        assert.deepEqual(
          movements.map((entry: Record<string, unknown>) => [entry.type, entry.status, entry.amount]),
          [[kind === 'collect' ? 'cash-in' : 'cash-out', 'succeeded', record.cashAmount]],
          'one balance movement',
        )
        const events = (await restarted.get('/api/v1/events', { token })).body.data.events as {
          type: string
        }[]
        assert.deepEqual(
          events.map((event) => event.type).sort(),
          [`${kind}.pending`, `${kind}.succeeded`],
          'each status taken once',
        )
        // One snapshot of the store while the restarted process runs on.
        const verified = await runSika(store().databaseUrl, ['verify'])
        assert.equal(verified.code, 0, `sika verify:\n${verified.stdout}${verified.stderr}`)
        mark('verified')
        options.diagnostic(`${store().name}, ${kind} via ${operator.name}: ${timings.join(', ')}`)
      } catch (error) {
        // The next scenario starts from a fresh process.
        await first.kill('SIGKILL')
        await second?.stop()
        service = undefined
        const logs = `first:\n${first.output().slice(-4000)}\nsecond:\n${second?.output().slice(-4000) ?? ''}`
        throw new Error(`${(error as Error).message}\n${logs}`, { cause: error })
      }
    }

    test('MTN MoMo collect: killed once MTN accepted the RequestToPay; the restart’s poll settles it, credited once', async (t) => {
      await crashAndRestart({
        kind: 'collect',
        side: {
          amount: 5000,
          channel: 'mtn-momo',
          country: 'CI',
          customer: { phoneNumber: mtnPhone('126') },
        },
        operator: mtnOperator('collect'),
        killWhen: 'accepted',
        diagnostic: (message) => t.diagnostic(message),
      })
    })

    test('MTN MoMo disbursement funded by live collects: killed once MTN accepted the Transfer; paid out once', async (t) => {
      await crashAndRestart({
        kind: 'disbursement',
        side: {
          amount: 4000,
          channel: 'mtn-momo',
          country: 'CI',
          customer: { phoneNumber: mtnPhone('127') },
        },
        operator: mtnOperator('disbursement'),
        killWhen: 'accepted',
        diagnostic: (message) => t.diagnostic(message),
      })
    })

    test('Wave payout: killed once Wave accepted it (processing); the restart’s poll finds it paid, debited once', async (t) => {
      await crashAndRestart({
        kind: 'disbursement',
        side: { amount: 3000, channel: 'wave', country: 'SN', customer: { phoneNumber: wavePhone('128') } },
        operator: waveOperator,
        killWhen: 'accepted',
        diagnostic: (message) => t.diagnostic(message),
      })
    })

    test('Wave payout: killed right after the initiation’s HTTP 200; resolved after the restart, debited once', async (t) => {
      await crashAndRestart({
        kind: 'disbursement',
        side: { amount: 2000, channel: 'wave', country: 'SN', customer: { phoneNumber: wavePhone('129') } },
        operator: waveOperator,
        killWhen: 'answered',
        diagnostic: (message) => t.diagnostic(message),
      })
    })
  }),
)

async function xofBalance(client: ApiClient): Promise<{ balance: number; held: number }> {
  const response = await client.get('/api/v1/balance')
  assert.equal(response.status, 200, response.text)
  return (
    response.body.data.balances.find((entry: { currency: string }) => entry.currency === 'XOF') ?? {
      balance: 0,
      held: 0,
    }
  )
}

/** Reads the record until it leaves pending; the workers of the running process do the work. */
async function finalRecord(client: ApiClient, kind: Kind, token: string, withinMs: number) {
  const deadline = Date.now() + withinMs
  for (;;) {
    const response = await client.get(`/api/v1/${kind}/${token}`)
    assert.equal(response.status, 200, response.text)
    const record = response.body.data[kind]
    if (record.status !== 'pending') return record
    if (Date.now() > deadline) throw new Error(`${kind} ${token} still pending after ${withinMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}
