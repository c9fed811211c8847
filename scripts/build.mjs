// Bundles src/ into dist/sika.mjs with esbuild: plain JavaScript, one file, dependencies left
// as imports; the callback delivery thread's module alone into dist/delivery-thread.mjs, so
// that the thread (DELIVERY_THREAD=on) loads what delivery needs, not the HTTP server and its
// schemas too (about 27 MB less RSS to import), and what such a thread runs first, which loads it,
// into dist/delivery-thread-start.mjs; and the WAL checkpointer's thread into
// dist/wal-checkpoint-thread.mjs. The service's bundle looks for each beside itself. `bin/sika.mjs` calls ensureBuilt() on every
// start, so a clone, a pull or an edit never runs stale code, and a running service does not
// carry a TypeScript loader, whose RSS at idle the bundle saves (BENCHMARKS.md, Memory).
//
//   node scripts/build.mjs        builds now, whatever the dates
import { mkdirSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const outputFolder = join(root, 'dist')
export const bundlePath = join(outputFolder, 'sika.mjs')
/** Each bundle by the name it is written under (with .mjs), and its entry module. */
const entries = {
  'delivery-thread': join(root, 'src', 'app', 'delivery-thread.ts'),
  'delivery-thread-start': join(root, 'src', 'app', 'delivery-thread-start.mjs'),
  sika: join(root, 'src', 'cli', 'main.ts'),
  'wal-checkpoint-thread': join(root, 'src', 'store', 'wal-checkpoint-thread.mjs'),
}

/** The service bundle's path, every bundle built first when one is missing or older than a source or the lockfile. */
export async function ensureBuilt() {
  if (!isFresh()) await build()
  return bundlePath
}

export async function build() {
  const esbuild = await import('esbuild')
  try {
    const result = await esbuild.build({
      entryPoints: entries,
      outdir: outputFolder,
      outExtension: { '.js': '.mjs' },
      bundle: true,
      platform: 'node',
      target: 'node24',
      format: 'esm',
      packages: 'external',
      sourcemap: 'linked',
      // Not minified, so names stay readable in profiles and stack traces. keepNames is off: it
      // wraps every closure made at run time in a naming call (2 % of a details read); only
      // names esbuild renames to avoid a clash get a numeral.
      minify: false,
      keepNames: false,
      write: false,
      logLevel: 'warning',
    })
    mkdirSync(outputFolder, { recursive: true })
    // Processes started together may all find the bundle stale: each writes its own copy and
    // renames it into place, so none ever imports a half-written file; the service's last.
    const serviceLast = (file) => (file.path.startsWith(bundlePath) ? 1 : 0)
    for (const file of [...result.outputFiles].sort((a, b) => serviceLast(a) - serviceLast(b))) {
      const partial = `${file.path}.${process.pid}.partial`
      writeFileSync(partial, file.contents)
      renameSync(partial, file.path)
    }
  } finally {
    await esbuild.stop()
  }
}

function isFresh() {
  const builtAt = Math.min(
    ...Object.keys(entries).map((name) => modifiedAt(join(outputFolder, `${name}.mjs`))),
  )
  if (builtAt === 0) return false
  const inputs = [join(root, 'package.json'), join(root, 'package-lock.json')]
  if (inputs.some((file) => modifiedAt(file) >= builtAt)) return false
  return newestSource(join(root, 'src')) < builtAt
}

function newestSource(folder) {
  let newest = statSync(folder).mtimeMs
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name)
    newest = Math.max(newest, entry.isDirectory() ? newestSource(path) : modifiedAt(path))
  }
  return newest
}

function modifiedAt(file) {
  try {
    return statSync(file).mtimeMs
  } catch {
    return 0
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await build()
  console.log(`built ${bundlePath}`)
}
