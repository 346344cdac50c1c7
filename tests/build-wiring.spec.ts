import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

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
