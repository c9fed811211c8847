import assert from 'node:assert/strict'
import { test } from 'node:test'
import { SideChecks } from '../src/app/mechanisms/side-checks.ts'

/**
 * One side's status checks (app/mechanisms/side-checks.ts): one at a time, at most one an interval however
 * many ask, none asked meanwhile dropped; a notification during the side's submission is
 * remembered for when it ends.
 */

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

test('50 askers in a loop for 1.2 s: one check an interval, the first at once', async () => {
  // Each start is read as the instant the checks themselves took for it: a reading of our own
  // inside `run` could come milliseconds later on a loaded machine, and measure the scheduler.
  let lastReadMs = 0
  const checks = new SideChecks(100, () => {
    lastReadMs = performance.now()
    return lastReadMs
  })
  const startsMs: number[] = []
  const startedAt = performance.now()
  const run = async () => {
    startsMs.push(lastReadMs - startedAt)
    await sleep(5)
  }
  const asker = async () => {
    while (performance.now() - startedAt < 1200) {
      await checks.check('1/main', run)
      await sleep(2)
    }
  }
  await Promise.all(Array.from({ length: 50 }, asker))
  assert.ok(startsMs[0]! < 20, `the first check starts at once (${startsMs[0]} ms)`)
  const gaps = startsMs.slice(1).map((start, index) => start - startsMs[index]!)
  assert.ok(
    gaps.every((gap) => gap >= 99),
    `checks began ${startsMs.map(Math.round).join(', ')} ms in`,
  )
  assert.ok(startsMs.length >= 10 && startsMs.length <= 14, `${startsMs.length} checks`)
})

test('an ask during a running check is answered by a check that begins after it, never dropped', async () => {
  const checks = new SideChecks(50)
  let status = 'pending'
  const seen: string[] = []
  const run = async () => {
    const read = status
    await sleep(20)
    seen.push(read)
  }
  const first = checks.check('2/main', run)
  await sleep(5)
  status = 'succeeded'
  await Promise.all([checks.check('2/main', run), first])
  assert.deepEqual(seen, ['pending', 'succeeded'])
})

test('sides are checked apart', async () => {
  const checks = new SideChecks(1000)
  let runs = 0
  const run = async () => {
    runs++
  }
  await Promise.all([checks.check('3/main', run), checks.check('4/main', run), checks.check('4/to', run)])
  assert.equal(runs, 3)
})

test('a notification during the side’s submission is remembered for when it ends, and only then', async () => {
  const checks = new SideChecks()
  assert.equal(checks.heardDuringSubmission('5/main'), false, 'no submission in flight')
  const submitted = checks.submit('5/main', async () => {
    await sleep(10)
    return 'answer'
  })
  assert.equal(checks.heardDuringSubmission('5/main'), true)
  assert.deepEqual(await submitted, { result: 'answer', heard: true })
  assert.deepEqual(await checks.submit('5/main', async () => 'again'), { result: 'again', heard: false })
})
