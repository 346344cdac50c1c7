// `npm run -s surface [-- --json] [--unused]`: every name each workspace package exports (from each entry of
// its `exports` map), how many of them another package's source imports, and how many more its README's API
// table documents. A name that is neither is internal: stop exporting it (tests reach it by relative path).
//
// Who counts as a user ("used outside"): the source a user runs or writes, outside the exporting package:
// - src/ and bin/ of every other workspace package, except test-kit code (below);
// - examples/ (what the READMEs show a user writing), except examples/tests/.
// Tests (tests/ of any package or of the repo) never count: a test reaching a name does not make it public.
//
// Test kits: a `./testing` entry (and every entry of a package named `*-testing`, e.g. `dsh-llm-testing`) is
// what other packages' tests import. Its code (src/testing/, src/testing.ts, all of a `*-testing` package)
// is not counted as an importer of other packages, and its own names are public only when other source
// imports them (the bench runs the cache emulator) or when its README's API table lists them: a kit is
// documented, not merely imported by tests.
//
// The API table: in a package's README.md, the section under the heading `## API` (up to the next heading of
// level 1 or 2) holds one or more markdown tables. A name is documented when it starts a backticked span in
// the first column of a row: `` `createAgent(options)` `` documents `createAgent`, `` `Agent.prompt()` ``
// documents `Agent`, one cell may list several (`` `Foo`, `FooConfig` ``). A name anywhere else in the
// README does not count. A table row documents the name for every entry of the package.
import { readFileSync, readdirSync, existsSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { builtPackages } from './ensure-build.mjs'

const SOURCE_DIRS = ['src', 'bin']
/** Files of a package that are test-kit code, relative to the package folder. */
const TEST_KIT_CODE = /^src\/(testing\/|testing\.[mc]?[jt]s$)/

/** The TypeScript and JavaScript files (not declarations) under each existing folder of `dirs`, outside build output and node_modules. */
function codeFiles(dirs) {
  const out = []
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name === 'out') continue
      const path = join(dir, entry.name)
      if (entry.isDirectory()) walk(path)
      else if (/\.(m?ts|m?js)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(path)
    }
  }
  for (const dir of dirs) if (existsSync(dir)) walk(dir)
  return out
}

/** A package is a test kit as a whole when its name ends in `-testing`; otherwise its `./testing` entry is one. */
const isTestKitPackage = (manifest) => manifest.name.endsWith('-testing')
const isTestKitEntry = (manifest, subpath) => isTestKitPackage(manifest) || subpath === './testing'

/** A package's source files that count as importers of other packages: src/ and bin/, without test-kit code. */
function sourceFiles(folder, manifest) {
  if (isTestKitPackage(manifest)) return []
  return codeFiles(SOURCE_DIRS.map((sub) => join(folder, sub))).filter((file) => !TEST_KIT_CODE.test(relative(folder, file)))
}
/** Files under examples/ that a user writes (its host app), not its tests. */
const exampleFiles = (folder) => codeFiles([folder]).filter((file) => !relative(folder, file).startsWith('tests/'))

/**
 * The names a README's API table documents: the section under `## API` up to the next `#`/`##` heading,
 * each table row's first cell, each backticked span in it, the identifier the span starts with.
 */
export function apiTableNames(readme) {
  const names = new Set()
  let inApi = false
  for (const line of readme.split('\n')) {
    if (/^#{1,2} /.test(line)) { inApi = /^## API\s*$/.test(line); continue }
    if (!inApi || !line.startsWith('|')) continue
    const cell = firstCell(line)
    if (/^[\s:-]*$/.test(cell)) continue
    for (const span of cell.matchAll(/`([^`]*)`/g)) {
      const name = /^[A-Za-z_$][\w$]*/.exec(span[1])?.[0]
      if (name) names.add(name)
    }
  }
  return names
}

/** The first cell of a table row: up to the first `|` outside backticks. */
function firstCell(line) {
  let inCode = false
  for (let i = 1; i < line.length; i++) {
    if (line[i] === '`') inCode = !inCode
    else if (line[i] === '|' && !inCode && line[i - 1] !== '\\') return line.slice(1, i)
  }
  return line.slice(1)
}

/** The `source` file of each entry of a package's `exports` map, by subpath (`.`, `./http`, …). */
function entryPoints(folder, manifest) {
  const entries = {}
  for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
    const file = typeof target === 'string' ? target : target.source
    if (file && /\.ts$/.test(file)) entries[subpath] = join(folder, file)
  }
  return entries
}

function exportedNames(program, file) {
  const checker = program.getTypeChecker()
  const source = program.getSourceFile(file)
  if (!source) return []
  const symbol = checker.getSymbolAtLocation(source)
  return symbol ? checker.getExportsOfModule(symbol).map((s) => s.name) : []
}

/** Names imported from `specifier` (or one of its subpaths) in a file: `{ subpath, name }` pairs. */
function importsOf(file, packageName) {
  const text = readFileSync(file, 'utf8')
  if (!text.includes(packageName)) return []
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false)
  const found = []
  const record = (specifier, names) => {
    if (specifier !== packageName && !specifier.startsWith(`${packageName}/`)) return
    const subpath = specifier === packageName ? '.' : `.${specifier.slice(packageName.length)}`
    for (const name of names) found.push({ subpath, name })
  }
  const visit = (node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const names = []
      if (ts.isImportDeclaration(node)) {
        const clause = node.importClause
        if (clause?.name) names.push('default')
        const bindings = clause?.namedBindings
        if (bindings && ts.isNamedImports(bindings)) for (const el of bindings.elements) names.push((el.propertyName ?? el.name).text)
        if (bindings && ts.isNamespaceImport(bindings)) names.push('*')
      } else if (node.exportClause && ts.isNamedExports(node.exportClause)) {
        for (const el of node.exportClause.elements) names.push((el.propertyName ?? el.name).text)
      } else names.push('*')
      record(node.moduleSpecifier.text, names)
    }
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteral(node.arguments[0])) {
      record(node.arguments[0].text, ['*'])
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

/** The export surface of every workspace package. */
export function exportSurface(root) {
  const packages = builtPackages(root).map((folder) => ({ folder, manifest: JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) }))
  const files = [...packages.flatMap(({ folder, manifest }) => sourceFiles(folder, manifest)), ...exampleFiles(join(root, 'examples'))]
  const program = ts.createProgram(packages.flatMap(({ folder, manifest }) => Object.values(entryPoints(folder, manifest))), {
    allowImportingTsExtensions: true, noEmit: true, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler,
    customConditions: ['source'], target: ts.ScriptTarget.ES2022, skipLibCheck: true, allowJs: false,
  })
  return packages.map(({ folder, manifest }) => {
    const api = apiTableNames(existsSync(join(folder, 'README.md')) ? readFileSync(join(folder, 'README.md'), 'utf8') : '')
    const outside = files.filter((file) => !file.startsWith(folder + '/'))
    const used = new Set()
    for (const file of outside) for (const { subpath, name } of importsOf(file, manifest.name)) used.add(`${subpath}:${name}`)
    const entries = Object.entries(entryPoints(folder, manifest)).map(([subpath, file]) => {
      const names = exportedNames(program, file)
      const isUsed = (name) => used.has(`${subpath}:${name}`) || used.has(`${subpath}:*`)
      const documented = (name) => api.has(name)
      return {
        subpath,
        testKit: isTestKitEntry(manifest, subpath),
        exported: names.length,
        usedOutside: names.filter(isUsed).length,
        documented: names.filter((name) => !isUsed(name) && documented(name)).length,
        internal: names.filter((name) => !isUsed(name) && !documented(name)),
        all: names,
      }
    })
    // a command-line package exports nothing: one row says so
    if (entries.length === 0) entries.push({ subpath: '(none)', testKit: false, exported: 0, usedOutside: 0, documented: 0, internal: [], all: [] })
    return { name: manifest.name, folder: relative(root, folder), entries }
  })
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..')
  const surface = exportSurface(root)
  const total = (key) => surface.reduce((sum, p) => sum + p.entries.reduce((s, e) => s + (key === 'internal' ? e.internal.length : e[key]), 0), 0)
  const summary = { exported: total('exported'), usedOutside: total('usedOutside'), documentedOnly: total('documented'), internal: total('internal') }
  if (process.argv.includes('--json')) {
    process.stdout.write(JSON.stringify({ summary, packages: surface }, null, 2) + '\n')
  } else {
    const rows = [['package', 'entry', 'exported', 'used outside', 'documented only', 'neither']]
    for (const p of surface) for (const e of p.entries) rows.push([p.name, e.subpath, e.exported, e.usedOutside, e.documented, e.internal.length])
    rows.push(['all', '', summary.exported, summary.usedOutside, summary.documentedOnly, summary.internal])
    const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)))
    for (const r of rows) process.stdout.write(r.map((c, i) => String(c).padEnd(widths[i])).join('  ').trimEnd() + '\n')
    if (process.argv.includes('--unused')) {
      for (const p of surface) for (const e of p.entries) if (e.internal.length) process.stdout.write(`\n${p.name}${e.subpath === '.' ? '' : e.subpath.slice(1)}: ${e.internal.join(', ')}\n`)
    }
  }
}
