import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { builtinModules } from 'node:module'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { isBundled } from '../.ci/ensure-build.mjs'

// Every workspace package builds the same way (README.md#development). A package added without the wiring
// fails here with a message that says what to add, instead of failing later in a plain Node app.

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const NOTE = 'see README.md#development and .agents/notes/implemented/performance/2026-12-01-build-step.md'
/** Dependencies a host app must hold exactly one copy of: plugin packages take them as peers. */
const SINGLETONS = ['cordis', 'schemastery']

interface Manifest {
  name: string
  exports?: Record<string, unknown>
  bin?: Record<string, string>
  dependencies?: Record<string, string>
  peerDependencies?: Record<string, string>
  devDependencies?: Record<string, string>
  dsh?: { inline?: string[] }
}

const folders = ['packages', 'apps', 'devtools'].flatMap((group) =>
  readdirSync(join(ROOT, group)).filter((name) => existsSync(join(ROOT, group, name, 'package.json'))).map((name) => `${group}/${name}`))
const read = (path: string) => JSON.parse(readFileSync(join(ROOT, path), 'utf8'))
const manifests = new Map<string, Manifest>(folders.map((folder) => [folder, read(`${folder}/package.json`)]))
const folderOf = new Map([...manifests].map(([folder, manifest]) => [manifest.name, folder]))

/** Whether any file under the package's src/ imports `name` (or a subpath of it). */
function importsFromSource(folder: string, name: string): boolean {
  const pattern = new RegExp(`from '${name}(/[^']*)?'|import\\('${name}(/[^']*)?'\\)`)
  const walk = (dir: string): boolean => existsSync(dir) && readdirSync(dir, { withFileTypes: true }).some((entry) =>
    entry.isDirectory() ? walk(join(dir, entry.name)) : entry.name.endsWith('.ts') && pattern.test(readFileSync(join(dir, entry.name), 'utf8')))
  return walk(join(ROOT, folder, 'src'))
}

/** The JavaScript files under `dir`, as paths relative to it. */
function javaScriptIn(dir: string): string[] {
  if (!existsSync(dir)) return []
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.js'))
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
}

/** The TypeScript files under `dir`, as paths relative to it. */
function typeScriptSources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
}

/** The specifiers of a built file's static imports, re-exports and dynamic imports of string literals. */
function importsOf(code: string): string[] {
  const found: string[] = []
  // esbuild writes each import statement at the start of a line; a specifier-like text inside a string does not start one
  const withoutComments = code.replace(/\/\*[\s\S]*?\*\//g, '')
  for (const match of withoutComments.matchAll(/^(?:import|export)\b[^;"'`]*?["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/gm)) {
    found.push(match[1] ?? match[2]!)
  }
  return found
}

/** `@scope/x/y` → `@scope/x`, `x/y` → `x`. */
const packageOf = (specifier: string) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/')

/**
 * The mistakes of a bundled package's dist/ JavaScript (.ci/bundle.mjs): every file is an entry point or a chunk
 * an entry imports (no file-by-file leftovers), relative imports stay inside dist/, and every bare import is a
 * node builtin or a declared dependency or peer, never an inlined package.
 */
function bundleProblems(folder: string, manifest: Manifest, entries: string[]): string[] {
  const dist = join(ROOT, folder, 'dist')
  const files = javaScriptIn(dist)
  const declared = new Set([...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.peerDependencies ?? {})])
  const inline = new Set(manifest.dsh?.inline ?? [])
  const found: string[] = []
  const reached = new Set<string>()
  const visit = (file: string) => {
    if (reached.has(file)) return
    reached.add(file)
    for (const specifier of importsOf(readFileSync(join(dist, file), 'utf8'))) {
      if (specifier.startsWith('.')) {
        const target = relative(dist, join(dist, dirname(file), specifier))
        if (target.startsWith('..') || !files.includes(target)) found.push(`dist/${file} imports ${specifier}, which is not a built file of dist/`)
        else visit(target)
        continue
      }
      const name = packageOf(specifier.replace(/^node:/, ''))
      if (specifier.startsWith('node:') || builtinModules.includes(name)) continue
      if (inline.has(name)) found.push(`dist/${file} imports ${specifier}, which package.json's "dsh.inline" says is bundled in`)
      else if (!declared.has(name)) found.push(`dist/${file} imports ${specifier}, which is neither a dependency nor a peer`)
    }
  }
  for (const entry of entries) {
    if (files.includes(entry)) visit(entry)
    else found.push(`the bundler wrote no dist/${entry}`)
  }
  for (const file of files) {
    const head = readFileSync(join(dist, file), 'utf8').slice(0, 200)
    for (const name of inline) if (!head.startsWith('/*! This file includes') || !head.includes(name)) found.push(`dist/${file} does not start with the licence of the inlined ${name}`)
  }
  for (const file of files) if (!reached.has(file)) found.push(`dist/${file} is neither an entry point nor a chunk an entry imports (a file-by-file leftover?)`)
  for (const name of inline) if (declared.has(name)) found.push(`lists ${name} under "dsh.inline" and as a dependency; an inlined package is a devDependency`)
  return found
}

/** The wiring mistakes of one package, as sentences; empty when it is wired like every other. */
function problems(folder: string): string[] {
  const manifest = manifests.get(folder)!
  const found: string[] = []
  const tsconfigPath = join(ROOT, folder, 'tsconfig.json')
  if (!existsSync(tsconfigPath)) {
    found.push(`has no tsconfig.json; add { "extends": "../../tsconfig.package.json", "references": [...] }`)
  } else {
    const tsconfig = read(`${folder}/tsconfig.json`)
    if (tsconfig.extends !== '../../tsconfig.package.json') found.push(`tsconfig.json must extend "../../tsconfig.package.json", not ${JSON.stringify(tsconfig.extends)}`)
    const referenced = (tsconfig.references ?? []).map((reference: { path: string }) => join(folder, reference.path)).sort()
    const expected = Object.keys(manifest.dependencies ?? {}).filter((name) => folderOf.has(name)).map((name) => folderOf.get(name)!).sort()
    if (JSON.stringify(referenced) !== JSON.stringify(expected)) {
      found.push(`tsconfig.json references ${JSON.stringify(referenced)} but its workspace dependencies are ${JSON.stringify(expected)}`)
    }
  }
  const built = read('tsconfig.build.json').references.map((reference: { path: string }) => reference.path)
  if (!built.includes(folder)) found.push(`is missing from tsconfig.build.json's references`)

  const exports = manifest.exports ?? {}
  if (!exports['.'] && !manifest.bin) found.push(`has no "exports" "." entry`)
  for (const [subpath, target] of Object.entries(exports)) {
    const source = (target as { source?: unknown })?.source
    const match = typeof source === 'string' ? /^\.\/src\/(.+)\.ts$/.exec(source) : null
    const wanted = match && { source, types: `./dist/${match[1]}.d.ts`, default: `./dist/${match[1]}.js` }
    if (!wanted || JSON.stringify(target) !== JSON.stringify(wanted)) {
      found.push(`exports["${subpath}"] must be { "source": "./src/<file>.ts", "types": "./dist/<file>.d.ts", "default": "./dist/<file>.js" } in that order, got ${JSON.stringify(target)}`)
    } else if (!existsSync(join(ROOT, folder, wanted.default))) {
      found.push(`exports["${subpath}"] points at ${wanted.default}, which the build did not produce`)
    }
  }
  for (const [name, path] of Object.entries(manifest.bin ?? {})) {
    const text = readFileSync(join(ROOT, folder, path), 'utf8')
    if (!text.includes('../dist/') || /tsx|\/src\//.test(text)) found.push(`bin "${name}" must run ../dist/ JavaScript with plain node (no tsx, no src/)`)
  }

  if (isBundled(join(ROOT, folder))) {
    const entries = Object.values(exports).map((target) => ((target as { default: string }).default ?? '').replace(/^\.\/dist\//, ''))
    if (existsSync(join(ROOT, folder, 'src', 'main.ts'))) entries.push('main.js')
    found.push(...bundleProblems(folder, manifest, entries))
    // entries and chunks land at dist/'s top level: a file below src/ that locates files from its own module
    // would find them one level off once bundled
    const nested = typeScriptSources(join(ROOT, folder, 'src')).filter((path) => path.includes('/') && /import\.meta\.(url|dirname|filename)/.test(readFileSync(join(ROOT, folder, 'src', path), 'utf8')))
    for (const path of nested) found.push(`src/${path} reads import.meta's location; only a top-level src/ file may, since bundled code sits at dist/'s top level`)
  }

  const isApp = folder.startsWith('apps/')
  for (const singleton of SINGLETONS) {
    // a package whose built code never imports the singleton (a test-only devDependency) has nothing to share
    const uses = Boolean(manifest.dependencies?.[singleton] || manifest.peerDependencies?.[singleton]) || importsFromSource(folder, singleton)
    if (!uses || isApp) continue
    if (manifest.dependencies?.[singleton]) found.push(`lists ${singleton} under "dependencies"; a plugin package takes it as a peer so its host keeps one copy`)
    if (!manifest.peerDependencies?.[singleton]) found.push(`must list ${singleton} under "peerDependencies"`)
    if (!manifest.devDependencies?.[singleton]) found.push(`must list ${singleton} under "devDependencies" too (for its own tests and build)`)
  }
  return found.map((problem) => `${folder}: ${problem} (${NOTE})`)
}

describe('build wiring of every workspace package', () => {
  it('finds the packages', () => {
    expect(folders).toContain('packages/system-prompt')
    expect(folders).toContain('apps/stdio-demo')
  })

  for (const folder of folders) {
    it(`${folder} builds to dist/ like the rest`, () => {
      expect(problems(folder)).toEqual([])
    })
  }

  it('tsconfig.build.json lists nothing but workspace packages', () => {
    const built: string[] = read('tsconfig.build.json').references.map((reference: { path: string }) => reference.path)
    expect(built.filter((path) => !folders.includes(path))).toEqual([])
  })
})
