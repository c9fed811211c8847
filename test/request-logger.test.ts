import assert from 'node:assert/strict'
import { Writable } from 'node:stream'
import { test } from 'node:test'
import type { Logger } from 'pino'
import { lazyRequestLogger } from '../src/http/request-logger.ts'
import { createLogger } from '../src/logger.ts'

function captured(level: 'info' | 'warn') {
  const lines: Record<string, unknown>[] = []
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)))
      done()
    },
  })
  const logger = createLogger(level, sink)
  let children = 0
  const counting = new Proxy(logger, {
    get: (target, name) =>
      name === 'child'
        ? (...args: Parameters<typeof logger.child>) => {
            children++
            return target.child(...args)
          }
        : Reflect.get(target, name),
  })
  return { lines, logger: counting, children: () => children }
}

test('a request logger is made only when a line is written at an enabled level, and carries the requestId', () => {
  const { lines, logger, children } = captured('warn')
  const log = lazyRequestLogger(logger as never, { requestId: 'req-1' }, {}) as unknown as Logger
  log.info('incoming request')
  log.debug('details')
  assert.equal(children(), 0, 'nothing below warn made a child')
  assert.equal(log.isLevelEnabled('info'), false)
  assert.equal(log.level, 'warn')
  log.error({ err: new Error('boom') }, 'unhandled error')
  log.warn('slow')
  assert.equal(children(), 1, 'one child, made once')
  assert.deepEqual(
    lines.map((line) => [line.msg, line.requestId]),
    [
      ['unhandled error', 'req-1'],
      ['slow', 'req-1'],
    ],
  )
})

test("a request logger's own children carry the request's bindings and theirs; secrets stay redacted", () => {
  const { lines, logger } = captured('info')
  const log = lazyRequestLogger(logger as never, { requestId: 'req-2' }, {})
  log.child({ step: 'submit' }).info({ headers: { 'secret-key': 'sk_test_x' } }, 'submitted')
  assert.equal(lines[0]?.requestId, 'req-2')
  assert.equal(lines[0]?.step, 'submit')
  assert.deepEqual(lines[0]?.headers, { 'secret-key': '[redacted]' })
})

test("a route's own log level is honoured", () => {
  const { lines, logger } = captured('info')
  const log = lazyRequestLogger(logger as never, { requestId: 'req-3' }, { level: 'error' })
  log.info('not written')
  log.error('written')
  assert.deepEqual(
    lines.map((line) => line.msg),
    ['written'],
  )
})
