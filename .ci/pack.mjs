// `npm run pack`: one installable tarball per publishable workspace package, in `.packs/` at the root.
// Each package is staged in a temp folder (its `files`, the root LICENSE and a package.json with the
// workspace ranges made real and the `source` condition removed), then packed by `npm pack`, so the
// tarball holds exactly what a registry install would get. Packages marked `private` are skipped.
import { spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { builtPackages, ensureBuild } from './ensure-build.mjs'

const FIELDS = ['dependencies', 'peerDependencies', 'optionalDependencies']

/** The workspace's packages by name: `{ folder, manifest }`. */
export function workspacePackages(root) {
  const byName = new Map()
  for (const folder of builtPackages(root)) {
    const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8'))
    byName.set(manifest.name, { folder, manifest })
  }
  return byName
}

function withoutSource(exports) {
  if (typeof exports !== 'object' || exports === null) return exports
  const out = {}
  for (const [key, value] of Object.entries(exports)) if (key !== 'source') out[key] = withoutSource(value)
  return out
}

/** The manifest as published: real ranges for workspace packages, no dev-only fields, no `source` condition. */
export function publishedManifest(manifest, byName) {
  const out = { ...manifest }
  delete out.devDependencies
  delete out.scripts
  out.exports = withoutSource(manifest.exports)
  for (const field of FIELDS) {
    if (!manifest[field]) continue
    out[field] = {}
    for (const [name, range] of Object.entries(manifest[field])) {
      if (!range.startsWith('workspace:')) { out[field][name] = range; continue }
      const target = byName.get(name)
      if (!target) throw new Error(`${manifest.name}: ${field} names "${name}" with ${range}, but no workspace package has that name`)
      if (target.manifest.private) throw new Error(`${manifest.name}: ${field} names the private package "${name}"; a published package cannot depend on it`)
      out[field][name] = `^${target.manifest.version}`
    }
  }
  return out
}

/** Packs every publishable package into `dest`; returns the tarball paths by package name. */
export function packWorkspace(root, dest = join(root, '.packs')) {
  if (!ensureBuild(root)) throw new Error('the build failed; nothing was packed')
  const byName = workspacePackages(root)
  mkdirSync(dest, { recursive: true })
  const stage = mkdtempSync(join(tmpdir(), 'dsh-pack-'))
  const tarballs = new Map()
  try {
    for (const [name, { folder, manifest }] of byName) {
      if (manifest.private) continue
      const dir = join(stage, name)
      mkdirSync(dir)
      for (const entry of manifest.files ?? []) {
        if (entry.startsWith('!') || entry === 'LICENSE') continue
        const from = join(folder, entry)
        if (!existsSync(from)) throw new Error(`${name}: "files" lists ${entry}, which does not exist in ${folder}`)
        cpSync(from, join(dir, entry), { recursive: true })
      }
      cpSync(join(root, 'LICENSE'), join(dir, 'LICENSE'))
      writeFileSync(join(dir, 'package.json'), JSON.stringify(publishedManifest(manifest, byName), null, 2) + '\n')
      const result = spawnSync('npm', ['pack', dir, '--pack-destination', dest, '--json', '--silent'], { encoding: 'utf8' })
      if (result.status !== 0) throw new Error(`npm pack ${name} failed (exit ${result.status}): ${result.stderr.trim()}`)
      const [info] = JSON.parse(result.stdout)
      tarballs.set(name, join(dest, info.filename))
    }
  } finally {
    rmSync(stage, { recursive: true, force: true })
  }
  return tarballs
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..')
  try {
    const tarballs = packWorkspace(root)
    for (const path of tarballs.values()) process.stdout.write(`${path}\n`)
    process.stderr.write(`dsh: packed ${tarballs.size} package(s) into .packs/\n`)
  } catch (error) {
    process.stderr.write(`dsh pack: ${error instanceof Error ? error.message : String(error)}\n`)
    process.exit(1)
  }
}
