import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { formatTimestamp, parseTimestamp } from '../../src/domain/clock.ts'

/** The spec's date format, computed without Date: it must agree with Date's own calendar. */
test('a timestamp is written as Date writes it, with six digits of microseconds', () => {
  // 1970 to 2200: leap years, century years (2100 is not a leap year, 2000 is) and every second.
  const maximumUs = Date.UTC(2200, 0, 1) * 1000
  fc.assert(
    fc.property(fc.integer({ min: 0, max: maximumUs }), (timeUs) => {
      const millis = Math.floor(timeUs / 1000)
      const expected = `${new Date(millis).toISOString().slice(0, 19)}.${String(timeUs % 1_000_000).padStart(6, '0')}Z`
      assert.equal(formatTimestamp(timeUs), expected)
      assert.equal(parseTimestamp(expected), timeUs)
    }),
    { numRuns: 20_000 },
  )
  assert.equal(formatTimestamp(0), '1970-01-01T00:00:00.000000Z')
  assert.equal(
    formatTimestamp(Date.UTC(2000, 1, 29, 23, 59, 59) * 1000 + 999_999),
    '2000-02-29T23:59:59.999999Z',
  )
  assert.equal(formatTimestamp(Date.UTC(2100, 2, 1) * 1000 + 7), '2100-03-01T00:00:00.000007Z')
})
