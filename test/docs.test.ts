import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { sandboxBehaviours } from '../src/domain/sandbox-outcomes.ts'
import { adapterFields } from '../src/providers/operators-file.ts'
import { startApp } from './support/app.ts'
import { describeEachStore } from './support/stores.ts'

/**
 * What a merchant reads (the README, the client's README, the guides under docs/guide/) stands on
 * its own: it names no file outside the repository, its links and the paths it cites exist, and
 * the guides keep up with the tables they describe (the sandbox's outcomes, OPERATORS_FILE).
 */

const repositoryRoot = fileURLToPath(new URL('..', import.meta.url))
const guideFolder = join(repositoryRoot, 'docs/guide')
const guides = readdirSync(guideFolder).filter((file) => file.endsWith('.md'))
const merchantDocuments = [
  'README.md',
  'client/README.md',
  ...guides.map((file) => `docs/guide/${file}`),
].map((file) => ({ file, text: readFileSync(join(repositoryRoot, file), 'utf8') }))

const guide = (name: string) => readFileSync(join(guideFolder, name), 'utf8')

test('the guides cover what a merchant needs, each linked from the guides’ index and the README links the index', () => {
  const topics = [
    'modes-and-keys',
    'money-and-fees',
    'statuses',
    'idempotency',
    'callbacks',
    'sandbox',
    'errors',
    'lists',
    'refunds',
    'balance-and-statements',
    'limits',
    'live-mode',
  ]
  const index = guide('README.md')
  for (const topic of topics) {
    assert.ok(guides.includes(`${topic}.md`), `docs/guide/${topic}.md exists`)
    assert.match(index, new RegExp(`\\]\\(${topic}\\.md\\)`), `the index links ${topic}.md`)
  }
  assert.match(readFileSync(join(repositoryRoot, 'README.md'), 'utf8'), /\]\(docs\/guide\/README\.md\)/)
})

test('nothing a merchant reads points outside the repository', () => {
  for (const { file, text } of merchantDocuments) {
    assert.doesNotMatch(
      text,
      /CONTRACT\.md|\.\.\/shared|shared\/spec/,
      `${file} cites a file outside the repository`,
    )
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      assert.doesNotMatch(target!, /^[a-z]+:/i, `${file} links outside the repository: ${target}`)
      if (target!.startsWith('#')) continue
      const path = resolve(dirname(join(repositoryRoot, file)), target!.split('#')[0]!)
      assert.ok(existsSync(path), `${file} links ${target}, which is not in the repository`)
    }
  }
})

test('every repository path a merchant document cites exists', () => {
  const missing: string[] = []
  for (const { file, text } of merchantDocuments) {
    for (const [, cited] of text.matchAll(/`((?:docs|src|examples|client|scripts|bench|test)\/[\w./-]*)`/g)) {
      const path = cited!.replace(/[.,]$/, '')
      if (!existsSync(join(repositoryRoot, path))) missing.push(`${file}: ${path}`)
    }
  }
  assert.deepEqual(missing, [])
})

test('the sandbox guide has a row for each phone ending the sandbox acts on', () => {
  const sandbox = guide('sandbox.md')
  for (const ending of Object.keys(sandboxBehaviours))
    assert.match(sandbox, new RegExp(`^\\| ${ending} \\|`, 'm'), `the ${ending} row`)
})

test('the live mode guide gives every field of every OPERATORS_FILE adapter, under that adapter', () => {
  const live = guide('live-mode.md')
  for (const [adapter, fields] of Object.entries(adapterFields)) {
    const section = new RegExp(`^### \`${adapter}\`[^\\n]*\\n([\\s\\S]*?)(?=^##)`, 'm').exec(live)?.[1]
    assert.ok(section, `a "### \`${adapter}\`" section`)
    for (const field of fields) {
      const [top] = field.split('.')
      assert.ok(section.includes(`\`${top}\``), `${adapter}: ${top}`)
      const leaf = field.split('.').at(-1)!
      assert.ok(section.includes(`"${leaf}"`) || section.includes(`\`${leaf}\``), `${adapter}: ${field}`)
    }
  }
  for (const field of ['channel', 'countries', 'adapter', 'baseUrl', 'providers', 'callbackPublicKey'])
    assert.match(live, new RegExp(`\`${field}\``), field)
})

test('the callbacks guide verifies a callback in Node.js, PHP and Python with Standard Webhooks libraries', () => {
  const callbacks = guide('callbacks.md')
  for (const [language, library] of [
    ['js', "from 'standardwebhooks'"],
    ['php', '\\StandardWebhooks\\Webhook'],
    ['python', 'from standardwebhooks import Webhook'],
  ] as const) {
    const block = new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``).exec(callbacks)?.[1]
    assert.ok(block, `a ${language} example`)
    assert.ok(block.includes(library), `the ${language} example uses ${library}`)
    assert.match(block, /verify/, `the ${language} example verifies`)
  }
})

test('the money guide works supportedByAccount through, each way, for a collect and a disbursement', () => {
  const money = guide('money-and-fees.md')
  for (const term of ['supportedByAccount', 'cashAmount', 'transactionAmount', 'feesAmount'])
    assert.match(money, new RegExp(`\`${term}\``), term)
  assert.match(money, /### Worked example: a collect, each way/)
  assert.match(money, /### Worked example: a disbursement, each way/)
})

describeEachStore('the payout batches guide', (store) => {
  test('its request, sent to the sandbox, answers the total the guide shows, and its reference is its own', async () => {
    const text = guide('payout-batches.md')
    const body = JSON.parse(/-d '(\{[\s\S]*?\})'\n```/.exec(text)?.[1] ?? 'null')
    const shown = JSON.parse(/```json\n([\s\S]*?)```/.exec(text)?.[1]?.replace('"k3v9q-..."', '""') ?? 'null')
    assert.ok(body && shown, 'the guide has a request and an answer')
    const readme = readFileSync(join(repositoryRoot, 'README.md'), 'utf8')
    assert.ok(
      !readme.includes(`"${body.merchantReference}"`),
      'the README walk-through uses another reference',
    )
    const app = await startApp(store(), { environment: { RATE_LIMIT_PER_SECOND: '0' } })
    try {
      const merchant = await app.createMerchant('Guide merchant')
      const answer = await app.client(merchant.sandbox).post('/api/v1/payout-batch', body)
      assert.equal(answer.status, 200, answer.text)
      const batch = answer.body.data.payoutBatch
      assert.equal(batch.totalAmount, shown.totalAmount, 'the total the guide shows')
      assert.equal(batch.merchantReference, shown.merchantReference)
      assert.equal(batch.itemCount, shown.itemCount)
    } finally {
      await app.close()
    }
  })
})

test('the guides’ index lists the cancel and payout batch endpoints', () => {
  const index = guide('README.md')
  for (const endpoint of [
    'POST /disbursement/{token}/cancel',
    'POST /payout-batch',
    'POST /payout-batch/{token}/cancel',
  ])
    assert.ok(index.includes(endpoint), endpoint)
})
