import { readFileSync, statSync } from 'node:fs'
import { dirname, join, resolve as resolvePath } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { moduleResolve } from 'import-meta-resolve'

/**
 * The export conditions this process resolves with: Node's own (`node`, `import`) plus any given with
 * `--conditions` / `-C` (say `source` under `npm run dev`), so a package found next to the app file is the
 * same build the app itself would import.
 */
export function activeConditions(execArgv: readonly string[] = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ''): Set<string> {
  const conditions = new Set(['node', 'import'])
  const args = [...execArgv, ...nodeOptions.split(/\s+/).filter(Boolean)]
  args.forEach((arg, index) => {
    const inline = /^(?:--conditions|-C)=(.+)$/.exec(arg)
    if (inline) conditions.add(inline[1]!)
    else if ((arg === '--conditions' || arg === '-C') && args[index + 1]) conditions.add(args[index + 1]!)
  })
  return conditions
}

const isMissingPackage = (error: unknown) =>
  (error as { code?: string })?.code === 'ERR_MODULE_NOT_FOUND' && /Cannot find package/.test((error as Error).message)

/**
 * Resolves a bare plugin name of an app file: from the app file's folder first (its `node_modules`, then
 * each parent folder's, as Node looks up packages), so a package installed next to the app file wins;
 * then from the app's own dependencies (`appResolve`). A package found next to the file but broken (no
 * entry for these conditions) fails with Node's message instead of falling back.
 */
export function resolveBarePlugin(name: string, appFile: string, appResolve: (name: string) => string): string {
  try {
    return moduleResolve(name, pathToFileURL(resolvePath(appFile)), activeConditions()).href
  } catch (error) {
    if (!isMissingPackage(error)) throw error
  }
  try {
    return appResolve(name)
  } catch (error) {
    if (!isMissingPackage(error)) throw error
    const folder = dirname(resolvePath(appFile))
    throw new Error(`cannot find package "${name}" next to the app file (node_modules of ${folder} or a folder above it) `
      + `or among the app's own dependencies; install it next to the app file (npm i ${name}) or name a file or folder (./…)`)
  }
}

/**
 * A `file:` plugin URL as the loader can import it: a folder with a `package.json` becomes the entry that
 * package declares (`exports` for a named package, else `main`, else `index.js`); a file stays as it is.
 */
export function resolvePluginPath(url: string): string {
  const path = fileURLToPath(url)
  let folder = false
  try {
    folder = statSync(path).isDirectory()
  } catch {
    return url // a missing file fails when the loader imports it, with the path in the message
  }
  if (!folder) return url
  const manifest = join(path, 'package.json')
  let pkg: { name?: unknown; exports?: unknown; main?: unknown }
  try {
    pkg = JSON.parse(readFileSync(manifest, 'utf8'))
  } catch (error) {
    const reason = (error as { code?: string }).code === 'ENOENT' ? 'it has no package.json' : `its package.json cannot be read: ${(error as Error).message}`
    throw new Error(`plugin path ${path} is a folder and ${reason}; name the plugin's file (e.g. ./plugin/index.js) or give the folder a package.json`)
  }
  if (pkg.exports !== undefined) {
    if (typeof pkg.name !== 'string' || pkg.name === '') {
      throw new Error(`plugin folder ${path}: its package.json has "exports" but no "name"; add a name so the package can resolve its own exports`)
    }
    // a package resolving its own name goes through its own "exports" (Node's self-reference)
    return moduleResolve(pkg.name, pathToFileURL(manifest), activeConditions()).href
  }
  const main = typeof pkg.main === 'string' && pkg.main !== '' ? pkg.main : 'index.js'
  return pathToFileURL(resolvePath(path, main)).href
}
