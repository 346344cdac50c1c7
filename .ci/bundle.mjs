// The JavaScript of the packages under packages/ and apps/ (`isBundled` in ensure-build.mjs): one ES module per entry point, bundled by esbuild
// straight from the TypeScript sources (tsc -b writes only the declarations there). Every bare import stays an
// import (other workspace packages, cordis, schemastery, node:*), so each package is still loaded once and a
// host's cordis is the one every plugin sees; a package's own files become one module per entry, plus the
// chunks its entries share. A package may inline a third-party dependency it alone uses, by listing it in
// `"dsh": { "inline": [...] }` of its package.json (its licence text then heads the output).
// Run as `node .ci/bundle.mjs <package folder>...`; see .agents/notes/implemented/performance/2026-12-02-bundled-packages.md.
import { existsSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { build } from 'esbuild'

/**
 * The source files a package's entry points start from: every `exports` target's `source` (the wiring test
 * holds each target to `{ source, types, default }`), plus `src/main.ts` (its bin).
 */
function entryPoints(folder, manifest) {
  const sources = Object.values(manifest.exports ?? {}).map((target) => join(folder, target.source))
  const main = join(folder, 'src', 'main.ts')
  if (existsSync(main)) sources.push(main)
  if (sources.length === 0) throw new Error(`${manifest.name}: no entry point (no "exports", no src/main.ts)`)
  return sources
}

/** `lodash/fp` → `lodash`, `@scope/x/y` → `@scope/x`. */
function packageOf(specifier) {
  const parts = specifier.split('/')
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]
}

function removeJavaScript(dir) {
  if (!existsSync(dir)) return
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) removeJavaScript(path)
    else if (name.endsWith('.js')) rmSync(path)
  }
}

function licenceBanner(folder, inline) {
  const require = createRequire(join(folder, 'package.json'))
  const notices = inline.map((name) => {
    const home = dirname(require.resolve(`${name}/package.json`))
    const file = readdirSync(home).find((entry) => /^licen[cs]e/i.test(entry))
    if (!file) throw new Error(`${folder}: inlined package "${name}" has no LICENSE file to carry`)
    return `${name}:\n${readFileSync(join(home, file), 'utf8').trim()}`
  })
  return `/*! This file includes ${inline.join(', ')}, under their licences:\n\n${notices.join('\n\n').replace(/\*\//g, '* /')}\n*/`
}

/** Replaces the JavaScript in `<folder>/dist` with the bundled entry points and their shared chunks. */
async function bundlePackage(folder) {
  const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8'))
  const inline = manifest.dsh?.inline ?? []
  const dist = join(folder, 'dist')
  removeJavaScript(dist)
  await build({
    entryPoints: entryPoints(folder, manifest),
    outbase: join(folder, 'src'),
    outdir: dist,
    bundle: true,
    splitting: true,
    format: 'esm',
    // neutral: an inlined package resolves through its plain `import`/`default` exports (its ES modules),
    // never through a `node` condition that may point at CommonJS; node builtins are bare imports, kept below
    platform: 'neutral',
    target: 'node20',
    // Cordis names plugins and services after their classes: keep every function's and class's `name`
    keepNames: true,
    logLevel: 'warning',
    ...inline.length > 0 && { banner: { js: licenceBanner(folder, inline) } },
    plugins: [{
      name: 'bare-imports-stay',
      setup(build) {
        build.onResolve({ filter: /^[^./]/ }, ({ path }) => inline.includes(packageOf(path)) ? undefined : { path, external: true })
      },
    }],
  })
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  try {
    for (const folder of process.argv.slice(2)) await bundlePackage(folder)
  } catch (error) {
    console.error(error instanceof Error ? error.message : error)
    process.exit(1)
  }
}
