import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

// docs/architecture.md draws the layers and says "each package depends only on packages in lower layers;
// nothing imports upward". This reads the layers from that drawing (so the drawing is checked too) and every
// package's runtime dependencies and source imports, and names each one that points up or sideways.

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const DOC = 'docs/architecture.md'
/** Where workspace packages live; a name in the drawing is `<group>/<folder>`, or a bare folder of `packages/`. */
const GROUPS = ['packages', 'apps', 'devtools']
/** Dependency fields that are installed and loaded with the package (dev dependencies are test kits: left out). */
const RUNTIME_FIELDS = ['dependencies', 'peerDependencies', 'optionalDependencies'] as const

interface WorkspacePackage {
  /** `packages/agent-loop`, `apps/acp-demo`, … */
  folder: string
  /** The npm name (`dsh-agent-loop`). */
  name: string
  /** Other DSH packages named in its runtime dependency fields. */
  dependencies: string[]
  /** Each DSH package its `src/` imports (values, types and module augmentations), with the first file that does. */
  imports: Map<string, string>
}

/** The layer of each workspace folder, from the numbered rows of the doc's "## Layers" drawing. */
export function parseLayers(markdown: string, folders: readonly string[]): Map<string, number> {
  const section = /## Layers\n[\s\S]*?```\n([\s\S]*?)```/.exec(markdown)
  if (!section) throw new Error(`${DOC} has no drawing under "## Layers"`)
  const layers = new Map<string, number>()
  let level: number | undefined
  for (const line of section[1]!.split('\n')) {
    const numbered = /^\s*(\d+)\s{2}/.exec(line)
    if (numbered) level = Number(numbered[1])
    else if (/^\s*[│|]/.test(line) || !line.trim()) continue
    if (level === undefined) continue
    // names are one word each, two or more spaces apart; the description after them has single spaces
    for (const cell of line.slice(numbered?.[0].length ?? 0).trim().split(/\s{2,}/)) {
      if (/\s/.test(cell) || cell.startsWith('(')) continue
      const folder = folders.includes(cell) ? cell : folders.includes(`packages/${cell}`) ? `packages/${cell}` : undefined
      if (!folder) throw new Error(`${DOC}'s layer drawing names "${cell}" (layer ${level}), which is no workspace folder; folders: ${folders.join(', ')}`)
      layers.set(folder, level)
    }
  }
  return layers
}

/** Every import of an upper or same-layer package, one line each, plus each package the drawing leaves out. */
export function layerViolations(packages: readonly WorkspacePackage[], layers: ReadonlyMap<string, number>): string[] {
  const byName = new Map(packages.map((pkg) => [pkg.name, pkg]))
  const problems: string[] = []
  for (const pkg of packages) {
    const own = layers.get(pkg.folder)
    if (own === undefined) {
      problems.push(`${pkg.folder} (${pkg.name}) is in no layer of ${DOC}'s drawing`)
      continue
    }
    const used = new Map<string, string>(pkg.dependencies.map((name) => [name, 'package.json']))
    for (const [name, file] of pkg.imports) if (!used.has(name)) used.set(name, file)
    for (const [name, where] of used) {
      const target = byName.get(name)
      const level = target && layers.get(target.folder)
      if (target === undefined || level === undefined || target === pkg || level < own) continue
      problems.push(`${pkg.folder} (layer ${own}) depends on ${name} (${target.folder}, layer ${level}) in ${where}; a package uses only lower layers`)
    }
  }
  return problems
}

function sourceFiles(dir: string): string[] {
  let entries
  try {
    entries = readdirSync(dir, { withFileTypes: true })
  } catch {
    return []
  }
  return entries.flatMap((entry) => entry.isDirectory() ? sourceFiles(join(dir, entry.name))
    : /\.(m?[jt]s|tsx)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [join(dir, entry.name)] : [])
}

// `from 'dsh-x'`, `import 'dsh-x'`, `import('dsh-x/sub')`, `declare module 'dsh-x'`
const DSH_SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*|\bdeclare\s+module\s+)['"](dsh-[a-z0-9-]+)(?:\/[^'"]*)?['"]/g

function readWorkspace(): WorkspacePackage[] {
  return GROUPS.flatMap((group) => readdirSync(join(ROOT, group), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => {
      const folder = `${group}/${entry.name}`
      let manifest: Record<string, unknown>
      try {
        manifest = JSON.parse(readFileSync(join(ROOT, folder, 'package.json'), 'utf8'))
      } catch {
        return []
      }
      const dependencies = RUNTIME_FIELDS.flatMap((field) => Object.keys((manifest[field] ?? {}) as object)).filter((name) => name.startsWith('dsh-'))
      const imports = new Map<string, string>()
      for (const file of sourceFiles(join(ROOT, folder, 'src'))) {
        for (const match of readFileSync(file, 'utf8').matchAll(DSH_SPECIFIER)) {
          if (!imports.has(match[1]!)) imports.set(match[1]!, file.slice(ROOT.length))
        }
      }
      return [{ folder, name: manifest.name as string, dependencies, imports }]
    }))
}

describe('the layers of docs/architecture.md', () => {
  const packages = readWorkspace()
  const folders = packages.map((pkg) => pkg.folder)
  const layers = parseLayers(readFileSync(join(ROOT, DOC), 'utf8'), folders)

  it('place every workspace package', () => {
    expect(folders.filter((folder) => !layers.has(folder))).toEqual([])
    expect(layers.get('packages/core')).toBe(0)
  })

  it('are kept: no package depends on or imports a package of its own or a higher layer', () => {
    expect(layerViolations(packages, layers)).toEqual([])
  })

  it('catch an import that points up or sideways, from src or from package.json', () => {
    const lower = packages.find((pkg) => pkg.folder === 'packages/session')!
    const upward = { ...lower, imports: new Map([...lower.imports, ['dsh-agent-loop', 'packages/session/src/x.ts']]) }
    const sideways = { ...lower, dependencies: [...lower.dependencies, 'dsh-llm'] }
    expect(layerViolations(packages.map((pkg) => pkg === lower ? upward : pkg), layers)).toEqual([
      `packages/session (layer 1) depends on dsh-agent-loop (packages/agent-loop, layer 3) in packages/session/src/x.ts; a package uses only lower layers`,
    ])
    expect(layerViolations(packages.map((pkg) => pkg === lower ? sideways : pkg), layers)).toEqual([
      `packages/session (layer 1) depends on dsh-llm (packages/llm, layer 1) in package.json; a package uses only lower layers`,
    ])
  })

  it('name a folder the drawing lists that the workspace does not have', () => {
    const drawing = '## Layers\n\n```\n 1  llm   gearbox      the root\n                     │\n 0  core        shared helpers\n```\n'
    expect(() => parseLayers(drawing, folders)).toThrow(`${DOC}'s layer drawing names "gearbox" (layer 1), which is no workspace folder`)
  })
})
