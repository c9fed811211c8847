import assert from 'node:assert/strict'
import { test } from 'node:test'
import { h } from 'preact'
import { render } from 'preact-render-to-string'
import { inEffectOrder, movementMeaning } from '../../src/domain/movement-meanings.ts'
import {
  ConfirmForm,
  countryName,
  Notification,
  numberedPages,
  Pagination,
  SummaryList,
  showInstant,
  showMoney,
  Table,
} from '../../src/http/pages/kit/index.ts'

/** The page kit: each component is a function of data whose markup is escaped, in both languages. */

const en = { locale: 'en' as const, csrf: 'token-1' }
const fr = { locale: 'fr' as const, member: { timeZone: 'Africa/Abidjan' } }

test('a table escapes what it shows, names its rows, aligns figures, and says when it has none', () => {
  type Person = { name: string; paid: number }
  const html = render(
    h(Table<Person>, {
      page: en,
      caption: 'People',
      columns: [
        { header: 'Name', rowHeader: true, cell: (row) => row.name },
        { header: 'Paid', numeric: true, cell: (row) => row.paid },
      ],
      rows: [{ name: '<b>Awa</b>', paid: 3 }],
      rowKey: (row) => row.name,
      rowClass: () => 'faulty',
    }),
  )
  assert.match(html, /<caption>People<\/caption>/)
  assert.match(
    html,
    /<tr class="faulty"><th scope="row">&lt;b>Awa&lt;\/b><\/th><td class="num">3<\/td><\/tr>/,
  )
  assert.match(html, /<th scope="col" class="num">Paid<\/th>/)
  const none = render(h(Table<string>, { page: fr, columns: [], rows: [], rowKey: String }))
  assert.equal(none, '<p class="muted">Rien pour le moment.</p>')
})

test('a summary list leaves out the rows that are not there', () => {
  const html = render(
    h(SummaryList, { rows: [['Token', 'abc'], false, '', null, undefined, ['Status', h('b', null, 'ok')]] }),
  )
  assert.equal(
    html,
    '<table><tbody><tr><th scope="row">Token</th><td>abc</td></tr><tr><th scope="row">Status</th><td><b>ok</b></td></tr></tbody></table>',
  )
})

test('pagination links only the pages there are, in the page’s language', () => {
  assert.equal(render(h(Pagination, { page: en, label: 'Links' })), '')
  const { first, next } = numberedPages('/list', 2, 120, 50)
  assert.deepEqual({ first, next }, { first: '/list', next: '/list?page=3' })
  assert.deepEqual(numberedPages('/list', 1, 50, 50), { first: undefined, next: undefined })
  const html = render(
    h(Pagination, { page: fr, label: 'Liens', first, next, position: { page: 2, pages: 3 } }),
  )
  assert.match(
    html,
    /^<nav aria-label="Liens" class="pages"><p>Page 2 sur 3<\/p><a href="\/list">Première page<\/a> <a href="\/list\?page=3">Page suivante<\/a><\/nav>$/,
  )
})

test('a notification says what was done politely and a refusal as an alert; a confirmation step carries the CSRF token', () => {
  assert.equal(render(h(Notification, { notice: 'Done' })), '<p class="notice" role="status">Done</p>')
  assert.equal(render(h(Notification, { error: '<no>' })), '<p class="error" role="alert">&lt;no></p>')
  const form = render(
    h(ConfirmForm, {
      page: en,
      action: '/x/close',
      id: 'close-intro',
      intro: 'Closes it.',
      button: 'Close',
      tone: 'danger',
    }),
  )
  assert.equal(
    form,
    '<form method="post" action="/x/close" class="inline"><input type="hidden" name="csrf" value="token-1"/><p id="close-intro">Closes it.</p><button type="submit" class="danger" aria-describedby="close-intro">Close</button></form>',
  )
})

test('money, time and countries in the reader’s language and zone', () => {
  assert.equal(showMoney(en, 500_000, 'XOF'), 'XOF\u00a0500,000')
  assert.equal(showMoney(fr, 500_000, 'XOF'), '500\u202f000\u00a0FCFA')
  assert.match(showInstant(en, Date.UTC(2026, 10, 28, 10) * 1000), /28 Nov 2026, 10:00:00 UTC/)
  assert.equal(countryName('CI', 'fr'), 'Côte d’Ivoire')
  assert.equal(countryName('SN', 'en'), 'Senegal')
})

test('a transfer’s ledger lines read as what happened, in the order the money took effect', () => {
  const line = (type: 'cash-in' | 'cash-out' | 'reversal', status: 'pending' | 'succeeded' | 'canceled') => ({
    token: 't',
    operationKind: 'transfer',
    type,
    status,
  })
  assert.equal(movementMeaning(line('reversal', 'canceled')), 'reserve-released')
  assert.equal(movementMeaning(line('reversal', 'succeeded')), 'sent-back-to-sender')
  assert.equal(movementMeaning({ ...line('reversal', 'succeeded'), operationKind: 'refund' }), 'refunded')
  // Newest first by when each line was written: the payout's hold came first.
  const written = [line('reversal', 'canceled'), line('cash-in', 'succeeded'), line('cash-out', 'succeeded')]
  assert.deepEqual(
    inEffectOrder(written).map((each) => each.type),
    ['reversal', 'cash-out', 'cash-in'],
  )
})
