#!/usr/bin/env node
// Runs dist/sika.mjs, the plain-JavaScript bundle of src/, rebuilt first (about 50 ms) whenever a
// source is newer: no separate build step between a clone and a start, and no TypeScript loader
// in a running service. Where the bundle cannot be written, the sources run through tsx.
import { setFlagsFromString } from 'node:v8'
import { ensureBuilt } from '../scripts/build.mjs'
import { exitUnlessSupportedNode } from '../scripts/node-version.mjs'

exitUnlessSupportedNode('sika')

// Sika's live heap is about 50 MB, but under load most of what survives a scavenge is a
// request's garbage, and V8's default lets the old space grow to about four times what the last
// full collection kept before collecting again. Growing by half instead keeps the peak RSS
// lower at the same throughput (BENCHMARKS.md, Memory). A flag given on the
// command line wins.
if (!process.execArgv.some((flag) => flag.startsWith('--heap-growing-percent')))
  setFlagsFromString('--heap-growing-percent=50')

let main
try {
  ;({ main } = await import(await ensureBuilt()))
} catch (error) {
  if (error?.code !== 'EACCES' && error?.code !== 'EROFS') throw error
  process.stderr.write(`sika: running the sources through tsx (${error.message})\n`)
  const { register } = await import('tsx/esm/api')
  register()
  ;({ main } = await import('../src/cli/main.ts'))
}
const code = await main(process.argv.slice(2))
if (code >= 0) process.exitCode = code
