import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createBoundedMemo } from '../src/events/bounded-memo.ts'

describe('a bounded memo: what a delivery works out again from the same callback URL', () => {
  it('computes an input once, and gives back the same answer after', () => {
    const computed: string[] = []
    const upper = createBoundedMemo((input: string) => {
      computed.push(input)
      return { upper: input.toUpperCase() }
    }, 10)
    const first = upper('https://a.example')
    assert.equal(upper('https://a.example'), first)
    upper('https://b.example')
    assert.deepEqual(computed, ['https://a.example', 'https://b.example'])
  })

  it('holds `kept` inputs at most: when full, it forgets them all and starts again', () => {
    let calls = 0
    const length = createBoundedMemo((input: string) => {
      calls++
      return String(input.length)
    }, 2)
    length('a')
    length('bb')
    length('ccc') // full: forgets a and bb
    length('ccc')
    assert.equal(calls, 3)
    length('a')
    assert.equal(calls, 4)
  })

  it('passes on what compute throws, and remembers nothing for it', () => {
    let calls = 0
    const parse = createBoundedMemo((input: string) => {
      calls++
      return new URL(input).origin
    }, 10)
    assert.throws(() => parse('not a url'), TypeError)
    assert.throws(() => parse('not a url'), TypeError)
    assert.equal(calls, 2)
  })
})
