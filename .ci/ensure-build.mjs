// Builds every workspace package when a dist is missing or older than a source: `tsc -b tsconfig.build.json`
// writes the declarations (and the devtools' JavaScript), then `.ci/bundle.mjs` the bundled JavaScript of the
// other stale packages (`isBundled`). Skipping is a stat walk, so `npm start` stays fast.
// tsc prints its diagnostics on stdout: they go to stderr, so piped demo output stays clean.
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const STAMP = '.built'
const SHARED = ['tsconfig.base.json', 'tsconfig.package.json', 'tsconfig.build.json', '.ci/bundle.mjs']

/** Folders of the packages `tsconfig.build.json` builds (the wiring test checks it lists every package). */
export function builtPackages(root) {
  const build = JSON.parse(readFileSync(join(root, 'tsconfig.build.json'), 'utf8'))
  return build.references.map((reference) => join(root, reference.path))
}

function newestIn(path) {
  const stat = statSync(path)
  if (!stat.isDirectory()) return stat.mtimeMs
  let newest = stat.mtimeMs
  for (const name of readdirSync(path)) newest = Math.max(newest, newestIn(join(path, name)))
  return newest
}

/**
 * Whether `.ci/bundle.mjs` writes the folder's JavaScript: yes unless its tsconfig.json turns tsc's
 * `emitDeclarationOnly` (set in tsconfig.package.json) off again, as devtools/ do to keep tsc's file-by-file output.
 */
export function isBundled(folder) {
  const tsconfig = JSON.parse(readFileSync(join(folder, 'tsconfig.json'), 'utf8'))
  return tsconfig.compilerOptions?.emitDeclarationOnly !== false
}

/** Package folders whose dist is missing or older than their sources, package.json, tsconfig, a shared tsconfig or the bundler. */
export function staleBuilds(root) {
  const shared = Math.max(...SHARED.map((name) => statSync(join(root, name)).mtimeMs))
  return builtPackages(root).filter((folder) => {
    const stamp = join(folder, 'dist', STAMP)
    if (!existsSync(stamp)) return true
    const built = statSync(stamp).mtimeMs
    const own = ['tsconfig.json', 'package.json'].map((name) => statSync(join(folder, name)).mtimeMs)
    return Math.max(shared, newestIn(join(folder, 'src')), ...own) > built
  })
}

/** Runs `tsc -b` and the bundler when any package is stale; returns false (after printing why) when the build fails. */
export function ensureBuild(root) {
  const stale = staleBuilds(root)
  if (stale.length === 0) return true
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc')
  const started = Date.now()
  const result = spawnSync(process.execPath, [tsc, '-b', join(root, 'tsconfig.build.json')], { cwd: root, stdio: ['ignore', 2, 2] })
  if (result.status !== 0) {
    console.error(`dsh: build failed ("tsc -b tsconfig.build.json" exit ${result.status ?? result.signal})`)
    return false
  }
  const bundled = stale.filter(isBundled)
  if (bundled.length > 0) {
    const bundle = spawnSync(process.execPath, [join(root, '.ci', 'bundle.mjs'), ...bundled], { cwd: root, stdio: ['ignore', 2, 2] })
    if (bundle.status !== 0) {
      console.error(`dsh: build failed (".ci/bundle.mjs" exit ${bundle.status ?? bundle.signal})`)
      return false
    }
  }
  // tsc -b leaves an up-to-date project untouched, so the stamps (not tsc's outputs) record "checked now"
  for (const folder of builtPackages(root)) writeFileSync(join(folder, 'dist', STAMP), '')
  console.error(`dsh: build done in ${((Date.now() - started) / 1000).toFixed(1)} s (${stale.length} package(s) had changed)`)
  return true
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  if (!ensureBuild(join(dirname(fileURLToPath(import.meta.url)), '..'))) process.exit(1)
}
