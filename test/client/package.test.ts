import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { startApp, type TestApp } from '../support/app.ts'
import { describeEachStore } from '../support/stores.ts'

/**
 * The client as a merchant gets it: `npm pack` in client/ (its prepack builds dist/), the
 * tarball installed into a fresh project of its own, and the README's example run there with
 * plain `node` against a started Sika, then type-checked under `tsc --init`'s configuration.
 */

const run = promisify(execFile)
const repositoryRoot = fileURLToPath(new URL('../..', import.meta.url))
const clientFolder = join(repositoryRoot, 'client')
const typescriptCompiler = join(repositoryRoot, 'node_modules/typescript/bin/tsc')

/** The README's example: the ```js block that imports the package and creates a client. */
function exampleOf(readme: string, name: string): string {
  const blocks = [...readme.matchAll(/```js\n([\s\S]*?)```/g)].map((match) => match[1]!)
  const example = blocks.find((block) => block.includes('createSikaClient('))
  assert.ok(example, `${name} shows a complete example`)
  return example
}

const rootExample = exampleOf(readFileSync(join(repositoryRoot, 'README.md'), 'utf8'), 'README.md')

/** npm as a merchant runs it: none of the npm_* settings of the `npm test` that may be running this. */
function npmEnvironment(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)))
}

async function npm(cwd: string, args: string[]) {
  try {
    return await run('npm', args, { cwd, env: npmEnvironment(), timeout: 120_000 })
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; message: string }
    throw new Error(`npm ${args.join(' ')} failed: ${failed.message}\n${failed.stdout}\n${failed.stderr}`)
  }
}

let folder: string
let project: string
let tarballFiles: string[]
before(
  async () => {
    folder = mkdtempSync(join(tmpdir(), 'sika-client-package-'))
    await npm(clientFolder, ['pack', '--pack-destination', folder])
    const tarball = readdirSync(folder).find((file) => file.endsWith('.tgz'))
    assert.ok(tarball, 'npm pack wrote a tarball')
    const listing = await run('tar', ['-tzf', join(folder, tarball)])
    tarballFiles = listing.stdout.split('\n').filter(Boolean)

    project = join(folder, 'shop')
    mkdirSync(project)
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({ name: 'shop', version: '1.0.0', private: true, type: 'module' }),
    )
    // @types/node only for the type check (the example reads process.env), at the version the
    // repository itself installed, so that it comes from the npm cache.
    const lock = JSON.parse(readFileSync(join(repositoryRoot, 'package-lock.json'), 'utf8'))
    const typesVersion: string = lock.packages['node_modules/@types/node'].version
    await npm(project, [
      'install',
      join(folder, tarball),
      `@types/node@${typesVersion}`,
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
    ])
    writeFileSync(join(project, 'sika-example.mjs'), rootExample)
  },
  { timeout: 240_000 },
)
after(() => {
  if (folder) rmSync(folder, { recursive: true, force: true })
})

test('the tarball holds the built JavaScript and its declarations, no TypeScript source', () => {
  const files = tarballFiles.map((file) => file.replace(/^package\//, ''))
  for (const expected of [
    'package.json',
    'README.md',
    'openapi.json',
    'dist/sika-client.js',
    'dist/sika-client.d.ts',
  ])
    assert.ok(files.includes(expected), `${expected} is packed:\n${files.join('\n')}`)
  assert.deepEqual(
    files.filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts')),
    [],
  )
})

test('the package depends on openapi-fetch and standardwebhooks only', () => {
  const manifest = JSON.parse(readFileSync(join(project, 'node_modules/@sika/client/package.json'), 'utf8'))
  assert.deepEqual(Object.keys(manifest.dependencies).sort(), ['openapi-fetch', 'standardwebhooks'])
  assert.equal(manifest.type, 'module')
})

test('the client README shows the same example as the README', () => {
  const clientReadme = readFileSync(join(clientFolder, 'README.md'), 'utf8')
  assert.equal(exampleOf(clientReadme, 'client/README.md'), rootExample)
})

test('the example type-checks under `tsc --init` (module nodenext) with Node.js types', async () => {
  await run(process.execPath, [typescriptCompiler, '--init'], { cwd: project })
  const config = readFileSync(join(project, 'tsconfig.json'), 'utf8')
  assert.match(config, /"module": "nodenext"/)
  writeFileSync(join(project, 'sika-example.mts'), rootExample)
  try {
    await run(process.execPath, [typescriptCompiler, '--noEmit', '-p', '.', '--types', 'node'], {
      cwd: project,
    })
  } catch (error) {
    const failed = error as { stdout?: string; message: string }
    assert.fail(`tsc found errors in the example:\n${failed.stdout ?? failed.message}`)
  }
})

describeEachStore('the README example, run with plain node from a fresh project', (store) => {
  let app: TestApp
  before(async () => {
    app = await startApp(store())
  })
  after(() => app?.close())

  test('collects, reads back, is refused a reused reference, and reads the balance', async (t) => {
    const merchant = await app.createMerchant('Shop')
    const { stdout, stderr } = await run(process.execPath, ['sika-example.mjs'], {
      cwd: project,
      env: {
        PATH: process.env.PATH,
        SIKA_URL: app.url,
        SIKA_API_KEY: merchant.sandbox.apiKey,
        SIKA_SECRET_KEY: merchant.sandbox.secretKey,
      },
      timeout: 30_000,
    })
    for (const line of stdout.trim().split('\n')) t.diagnostic(line)
    assert.equal(stderr, '')
    assert.match(stdout, /^collect [a-z0-9-]+ is succeeded: 4925 XOF reach your balance \(fees 75\)$/m)
    assert.match(stdout, /^read back: order-\d+ is succeeded$/m)
    assert.match(stdout, /^sent again with another amount: 409 duplicate_merchant_reference$/m)
    assert.match(stdout, /^XOF balance 1004925, available 1004925$/m)
  })

  test('says which keys to set when they are missing, and exits 1', async () => {
    const failed = await run(process.execPath, ['sika-example.mjs'], {
      cwd: project,
      env: { PATH: process.env.PATH },
    }).catch((error) => error as { code: number; stderr: string })
    assert.equal((failed as { code?: number }).code, 1)
    assert.match((failed as { stderr: string }).stderr, /Set SIKA_API_KEY and SIKA_SECRET_KEY/)
  })
})
