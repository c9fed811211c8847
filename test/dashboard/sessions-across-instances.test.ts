import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { startApp, type TestApp } from '../support/app.ts'
import { csrfIn, DashboardBrowser, signedInMember } from '../support/dashboard.ts'
import { createPostgresTarget, postgresAvailable } from '../support/stores.ts'

/**
 * Two instances of Sika on one PostgreSQL share every session: a session ended on one has ended
 * on the other by its next request, as nothing about it is kept in an instance.
 */
describe('dashboard sessions on two instances sharing PostgreSQL', {
  skip: !postgresAvailable && process.env.CI !== 'true',
}, () => {
  let first: TestApp
  let second: TestApp
  let cleanup: () => Promise<void>

  before(async () => {
    const created = await createPostgresTarget()
    cleanup = created.cleanup
    first = await startApp(created.target)
    second = await startApp(created.target)
  })
  after(async () => {
    await first?.close()
    await second?.close()
    await cleanup?.()
  })

  /** The same browser (its cookies) pointed at the other instance. */
  function onInstance(browser: DashboardBrowser, app: TestApp): DashboardBrowser {
    const moved = new DashboardBrowser(app)
    for (const [name, value] of browser.cookies) moved.cookies.set(name, value)
    return moved
  }

  test('signed in through one instance, the other serves the same session', async () => {
    const member = await signedInMember(first, { role: 'viewer' })
    assert.equal((await onInstance(member.browser, second).get('/dashboard/sandbox')).status, 200)
  })

  test('signed out on one instance, the next request to the other gets the sign-in page', async () => {
    const member = await signedInMember(first, { role: 'viewer' })
    const elsewhere = onInstance(member.browser, second)
    assert.equal((await elsewhere.get('/dashboard/sandbox')).status, 200)
    const home = await member.browser.get('/dashboard/sandbox')
    assert.equal(
      (await member.browser.post('/dashboard/logout', { csrf: csrfIn(home.text, '/dashboard/logout') }))
        .status,
      303,
    )
    const started = Date.now()
    const after = await elsewhere.get('/dashboard/sandbox')
    assert.equal(after.status, 303)
    assert.match(after.location ?? '', /^\/dashboard\/login/)
    assert.ok(Date.now() - started < 1000)
  })
})
