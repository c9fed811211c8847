// Runs every *.test.ts under test/ (or the files given) with node:test, through tsx.
import { spawn } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { join } from 'node:path'
import { exitUnlessSupportedNode } from './node-version.mjs'

exitUnlessSupportedNode('scripts/run-tests.mjs')

const given = process.argv.slice(2)
const files =
  given.length > 0
    ? given
    : readdirSync('test', { recursive: true })
        .map(String)
        .filter((file) => file.endsWith('.test.ts'))
        .sort()
        .map((file) => join('test', file))

const concurrency = Math.max(2, availableParallelism())
const child = spawn(
  process.execPath,
  ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, ...files],
  {
    stdio: 'inherit',
  },
)
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)))
