import assert from 'node:assert/strict'
import { test } from 'node:test'
import { platformRoles } from '../../src/domain/platform-roles.ts'
import { consoleEn } from '../../src/http/console/messages/en.ts'
import { consoleFr } from '../../src/http/console/messages/fr.ts'

/** Every key of a catalogue, with its value: a sentence, or a function of values. */
function entriesOf(catalogue: object, prefix = ''): Map<string, unknown> {
  const entries = new Map<string, unknown>()
  for (const [key, value] of Object.entries(catalogue)) {
    if (value !== null && typeof value === 'object')
      for (const entry of entriesOf(value, `${prefix}${key}.`)) entries.set(...entry)
    else entries.set(`${prefix}${key}`, value)
  }
  return entries
}

test('the console’s French words have every English key, of the same sort, translated', () => {
  const english = entriesOf(consoleEn)
  const french = entriesOf(consoleFr)
  assert.deepEqual([...english.keys()].sort(), [...french.keys()].sort())
  // Words that are the same in both languages.
  const same = new Set(['nav.label', 'roles.support', 'roles.finance', 'audit.action'])
  for (const [key, value] of english) {
    const other = french.get(key)
    assert.equal(typeof other, typeof value, key)
    if (typeof value === 'string') {
      assert.notEqual(String(other).trim(), '', key)
      // A mark with no letter (a dash for "none") reads the same in both languages.
      const hasWords = /\p{L}/u.test(value)
      if (hasWords && !same.has(key)) assert.notEqual(other, value, `${key} is not translated`)
    }
  }
})

test('every platform role has its name in both languages', () => {
  for (const role of platformRoles) {
    assert.ok(consoleEn.roles[role], role)
    assert.ok(consoleFr.roles[role], role)
  }
})
