import assert from 'node:assert/strict'
import { pbkdf2, pbkdf2Sync } from 'node:crypto'
import dns from 'node:dns'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { HostResolver } from '../src/events/host-resolver.ts'
import { forbiddenHostReason, publicOnlyLookup } from '../src/events/ssrf.ts'
import { type DnsServer, startDnsServer } from './support/dns-server.ts'

/**
 * The hosts of callback URLs are resolved off libuv's thread pool, within about a second, and
 * remembered (src/events/host-resolver.ts): `dns.lookup` ran in the pool, beside argon2 and
 * SQLite's WAL syncs, so a merchant whose callback domain answered slowly held a thread for 5–10 s,
 * and everyone's writes with it. The DNS here is a server of the test's own on 127.0.0.1; nothing
 * else is asked, and nothing is sent anywhere.
 */

const names = {
  'public.merchant.test': { a: ['203.0.113.5'], aaaa: ['2001:db8::5'], ttlS: 30 },
  'private.merchant.test': { a: ['10.0.0.7'] },
  'mixed.merchant.test': { a: ['203.0.113.6', '127.0.0.1'] },
  'slow.merchant.test': { a: ['203.0.113.8'], delayMs: 300 },
  'silent.merchant.test': { silent: true },
}

let server: DnsServer
before(async () => {
  server = await startDnsServer(names)
  // The process's resolver of callback hosts asks the servers `dns` is set to when it first resolves.
  dns.setServers([server.address])
})
after(() => server.close())

const questionsAbout = (name: string) => server.questions.filter((question) => question.name === name).length

describe('a resolver of callback hosts', () => {
  test('answers A and AAAA together, and keeps them for their TTL: the DNS is asked once', async () => {
    const resolver = new HostResolver({ servers: [server.address] })
    const first = await resolver.resolve('Public.Merchant.Test.')
    assert.deepEqual(first, {
      addresses: [
        { address: '203.0.113.5', family: 4 },
        { address: '2001:db8::5', family: 6 },
      ],
    })
    const asked = questionsAbout('public.merchant.test')
    assert.deepEqual(await resolver.resolve('public.merchant.test'), first)
    assert.equal(questionsAbout('public.merchant.test'), asked, 'answered from what it kept')
  })

  test('a name the DNS never answers is timed out within about a second, asked once however many wait, and not asked again for 10 s', async () => {
    const resolver = new HostResolver({ servers: [server.address] })
    const started = performance.now()
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => resolver.resolve('silent.merchant.test')),
    )
    const elapsedMs = performance.now() - started
    console.log(`# 20 asks for a silent name answered in ${Math.round(elapsedMs)} ms`)
    for (const answer of answers) assert.deepEqual(answer, { unresolved: 'timed-out' })
    assert.ok(elapsedMs < 2000, `answered in ${Math.round(elapsedMs)} ms`)
    // c-ares sends each of its two queries (A, AAAA) twice at most.
    const asked = questionsAbout('silent.merchant.test')
    assert.ok(asked <= 4, `${asked} questions for 20 asks`)
    const again = performance.now()
    assert.deepEqual(await resolver.resolve('silent.merchant.test'), { unresolved: 'timed-out' })
    assert.ok(performance.now() - again < 50, 'the second ask waits for nothing')
    assert.equal(questionsAbout('silent.merchant.test'), asked)
  })

  test('a name that does not exist is not found; one answered slowly, within the time, is waited for', async () => {
    const resolver = new HostResolver({ servers: [server.address] })
    assert.deepEqual(await resolver.resolve('nowhere.merchant.test'), { unresolved: 'not-found' })
    assert.deepEqual(await resolver.resolve('slow.merchant.test'), {
      addresses: [{ address: '203.0.113.8', family: 4 }],
    })
  })

  test('the hosts file and localhost names are answered without the DNS', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'sika-hosts-'))
    try {
      const hostsFile = join(folder, 'hosts')
      writeFileSync(
        hostsFile,
        '# a comment\n10.1.2.3   intranet.merchant.test  intranet # trailing\n::1 six\n',
      )
      const resolver = new HostResolver({ servers: [server.address], hostsFile })
      assert.deepEqual(await resolver.resolve('intranet'), {
        addresses: [{ address: '10.1.2.3', family: 4 }],
      })
      assert.deepEqual(await resolver.resolve('INTRANET.merchant.test'), {
        addresses: [{ address: '10.1.2.3', family: 4 }],
      })
      assert.deepEqual(await resolver.resolve('six'), { addresses: [{ address: '::1', family: 6 }] })
      for (const name of ['localhost', 'api.localhost'])
        assert.deepEqual(await resolver.resolve(name), {
          addresses: [
            { address: '127.0.0.1', family: 4 },
            { address: '::1', family: 6 },
          ],
        })
      assert.equal(questionsAbout('intranet'), 0)
      assert.equal(questionsAbout('localhost'), 0)
    } finally {
      rmSync(folder, { recursive: true, force: true })
    }
  })
})

/**
 * Every thread of libuv's pool busy with key derivations (as argon2 would be) for half a second or more;
 * `work` runs meanwhile. A file's stat, which needs a thread, is measured beside it to show the
 * pool was indeed full.
 */
async function whilePoolIsBusy<T>(
  work: () => Promise<T>,
): Promise<{ result: T; workMs: number; statMs: number }> {
  const threads = Number(process.env.UV_THREADPOOL_SIZE ?? 4)
  const iterations = 50_000
  const startedSync = performance.now()
  pbkdf2Sync('secret', 'salt', iterations, 32, 'sha256')
  const perJobMs = performance.now() - startedSync
  const scaled = Math.ceil((iterations * 500) / Math.max(1, perJobMs))
  const jobs = Array.from(
    { length: threads },
    () => new Promise((resolve) => pbkdf2('secret', 'salt', scaled, 32, 'sha256', resolve)),
  )
  await new Promise((resolve) => setTimeout(resolve, 20))
  const startedStat = performance.now()
  const statDone = stat('/').then(() => performance.now() - startedStat)
  const startedWork = performance.now()
  const result = await work()
  const workMs = performance.now() - startedWork
  const statMs = await statDone
  await Promise.all(jobs)
  return { result, workMs, statMs }
}

describe('the address checks never wait for libuv’s thread pool', () => {
  test('an initiation’s check of a callback host answers while every thread is busy', async () => {
    const { result, workMs, statMs } = await whilePoolIsBusy(() =>
      Promise.all([
        forbiddenHostReason('http://localhost:8080/callback'),
        forbiddenHostReason('https://private.merchant.test/callback'),
        forbiddenHostReason('https://public.merchant.test/callback'),
      ]),
    )
    console.log(
      `# checks answered in ${Math.round(workMs)} ms; a stat beside them took ${Math.round(statMs)} ms`,
    )
    assert.deepEqual(result, [
      'localhost resolves to 127.0.0.1, which is not a public address',
      'private.merchant.test resolves to 10.0.0.7, which is not a public address',
      undefined,
    ])
    assert.ok(statMs > 300, `the pool was busy (a stat took ${Math.round(statMs)} ms)`)
    assert.ok(workMs < statMs / 2, `the checks waited ${Math.round(workMs)} ms`)
  })

  test('a delivery’s lookup answers while every thread is busy, and keeps public addresses only', async () => {
    const lookup = (hostname: string) =>
      new Promise<{ error?: NodeJS.ErrnoException; addresses?: unknown }>((resolve) =>
        publicOnlyLookup(hostname, { all: true }, (error, addresses) =>
          resolve(error ? { error } : { addresses }),
        ),
      )
    const { result, workMs, statMs } = await whilePoolIsBusy(() =>
      Promise.all(['mixed.merchant.test', 'private.merchant.test', 'localhost'].map(lookup)),
    )
    console.log(
      `# lookups answered in ${Math.round(workMs)} ms; a stat beside them took ${Math.round(statMs)} ms`,
    )
    const [mixed, internal, local] = result
    assert.deepEqual(mixed?.addresses, [{ address: '203.0.113.6', family: 4 }])
    assert.equal(internal?.error?.code, 'ESSRF')
    assert.equal(local?.error?.code, 'ESSRF')
    assert.ok(statMs > 300, `the pool was busy (a stat took ${Math.round(statMs)} ms)`)
    assert.ok(workMs < statMs / 2, `the lookups waited ${Math.round(workMs)} ms`)
  })

  test('a callback host the DNS never answers is let through within about a second: delivery checks it again', async () => {
    const started = performance.now()
    assert.equal(await forbiddenHostReason('https://silent.merchant.test/callback'), undefined)
    const elapsedMs = performance.now() - started
    assert.ok(elapsedMs < 2000, `answered in ${Math.round(elapsedMs)} ms`)
    const refused = await new Promise<NodeJS.ErrnoException | null>((resolve) =>
      publicOnlyLookup('silent.merchant.test', {}, (error) => resolve(error)),
    )
    assert.equal(refused?.code, 'ETIMEOUT', 'a delivery there connects to nothing')
  })
})
