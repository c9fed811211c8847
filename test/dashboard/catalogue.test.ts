import assert from 'node:assert/strict'
import { test } from 'node:test'
import { en } from '../../src/http/dashboard/messages/en.ts'
import { fr } from '../../src/http/dashboard/messages/fr.ts'

/** Every key of a catalogue, with whether its value is a sentence or a function of values. */
function keysOf(catalogue: object, prefix = ''): Map<string, string> {
  const keys = new Map<string, string>()
  for (const [key, value] of Object.entries(catalogue)) {
    const path = `${prefix}${key}`
    if (value !== null && typeof value === 'object')
      for (const entry of keysOf(value, `${path}.`)) keys.set(...entry)
    else keys.set(path, typeof value)
  }
  return keys
}

test('the French catalogue has every key of the English one, each of the same sort, and no other', () => {
  const english = keysOf(en)
  const french = keysOf(fr)
  assert.deepEqual(
    [...english.keys()].filter((key) => !french.has(key)),
    [],
    'missing in French',
  )
  assert.deepEqual(
    [...french.keys()].filter((key) => !english.has(key)),
    [],
    'only in French',
  )
  for (const [key, sort] of english) assert.equal(french.get(key), sort, key)
})

test('no sentence is empty, and no French sentence is left in English', () => {
  const french = new Map<string, unknown>()
  const walk = (catalogue: object, other: object, prefix: string) => {
    for (const [key, value] of Object.entries(catalogue)) {
      const english = (other as Record<string, unknown>)[key]
      if (value !== null && typeof value === 'object') walk(value, english as object, `${prefix}${key}.`)
      else french.set(`${prefix}${key}`, [value, english])
    }
  }
  walk(fr, en, '')
  // Words that are the same in both languages.
  const same = new Set([
    'roles.support',
    'roles.finance',
    'kinds.recharge',
    'signIn.code',
    'common.actions',
    'common.mode',
  ])
  for (const [key, pair] of french) {
    const [value, english] = pair as [unknown, unknown]
    if (typeof value !== 'string') continue
    assert.notEqual(value.trim(), '', key)
    if (!same.has(key) && !key.startsWith('language.'))
      assert.notEqual(value, english, `${key} is not translated`)
  }
})
