#!/usr/bin/env node
// Runs the TypeScript sources directly through tsx: no build step between a clone and a start.
import { register } from 'tsx/esm/api'

register()
const { main } = await import('../src/cli/main.ts')
const code = await main(process.argv.slice(2))
if (code >= 0) process.exitCode = code
