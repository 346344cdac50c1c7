// DSH installed as a user installs it: the packed tarballs, with plain `npm i` in a folder outside the
// workspace, next to cordis from the registry (or npm's cache), with no overrides and no legacy flags.
import { spawnSync, type SpawnSyncReturns } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { packWorkspace, workspacePackages } from '../.ci/pack.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))
const example = join(root, 'examples', 'host-app')
const manifest = (path: string) => JSON.parse(readFileSync(join(root, path, 'package.json'), 'utf8'))
const versions = {
  cordis: manifest('packages/system-prompt').devDependencies.cordis as string,
  schemastery: manifest('packages/system-prompt').devDependencies.schemastery as string,
  typescript: manifest('.').devDependencies.typescript as string,
  '@types/node': manifest('.').devDependencies['@types/node'] as string,
}

// The outer `npm test` exports npm_* settings (prefix, workspace flags); a user's shell has none of them.
const env: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)))

let host: string
let state: string
let tarballs: Map<string, string>
let packs: string

function run(command: string, args: string[], options: { input?: string; timeout?: number } = {}): SpawnSyncReturns<string> {
  return spawnSync(command, args, {
    cwd: host, encoding: 'utf8', input: options.input ?? '', timeout: options.timeout ?? 120_000,
    env: { ...env, XDG_STATE_HOME: state },
  })
}

function ok(result: SpawnSyncReturns<string>): string {
  if (result.status !== 0) throw new Error(`exit ${result.status ?? result.signal}\n${result.stdout}\n${result.stderr}`)
  return result.stdout
}

/** Every installed copy of a package: npm may nest a second copy under any package's own node_modules. */
function copiesOf(name: string, folder = join(host, 'node_modules')): string[] {
  const found: string[] = []
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name.startsWith('.')) continue
    const path = join(folder, entry.name)
    if (entry.name.startsWith('@')) { found.push(...copiesOf(name, path)); continue }
    const own = join(path, 'package.json')
    if (existsSync(own) && JSON.parse(readFileSync(own, 'utf8')).name === name) found.push(path)
    if (existsSync(join(path, 'node_modules'))) found.push(...copiesOf(name, join(path, 'node_modules')))
  }
  return found
}

beforeAll(() => {
  host = mkdtempSync(join(tmpdir(), 'dsh-host-app-'))
  state = mkdtempSync(join(tmpdir(), 'dsh-host-state-'))
  cpSync(example, host, { recursive: true, filter: (path) => !/node_modules|[/\\]out$|sessions$/.test(path) })
  packs = mkdtempSync(join(tmpdir(), 'dsh-host-packs-'))
  tarballs = packWorkspace(root, packs)
  ok(run('npm', ['i', '--prefer-offline', '--no-audit', '--no-fund', ...tarballs.values(),
    ...Object.entries(versions).map(([name, version]) => `${name}@${version}`)], { timeout: 600_000 }))
}, 900_000)

afterAll(() => {
  for (const folder of [host, state, packs]) if (folder) rmSync(folder, { recursive: true, force: true })
}, 120_000)

// tsc and npx on a loaded 2-core machine take tens of seconds each
describe('npm run pack', () => {
  const entries = (tarball: string) => ok(spawnSync('tar', ['tzf', tarball], { encoding: 'utf8' })).trim().split('\n')
  const packedManifest = (tarball: string) => JSON.parse(ok(spawnSync('tar', ['xzOf', tarball, 'package/package.json'], { encoding: 'utf8' })))

  it('packs every package but the private ones, each with dist/ (JavaScript and declarations), README and LICENSE', () => {
    const publishable = [...workspacePackages(root).values()].filter(({ manifest }) => !manifest.private).map(({ manifest }) => manifest.name)
    expect([...tarballs.keys()].sort()).toEqual(publishable.sort())
    expect(publishable).not.toContain('dsh-bench')
    for (const tarball of tarballs.values()) {
      const files = entries(tarball)
      // a command-line package (dsh-prompt-inspector) exports nothing: its bin's dist/main.js is what it ships
      const entry = packedManifest(tarball).exports ? ['package/dist/index.js', 'package/dist/index.d.ts'] : ['package/dist/main.js']
      expect(files).toEqual(expect.arrayContaining([...entry, 'package/README.md', 'package/LICENSE', 'package/package.json']))
      expect(files.filter((file) => /\.tsbuildinfo$|\/src\/|\/tests\//.test(file))).toEqual([])
    }
  })

  it('writes real version ranges, peers for cordis and schemastery, and no source condition', () => {
    for (const tarball of tarballs.values()) {
      const manifest = packedManifest(tarball)
      const text = JSON.stringify(manifest)
      expect(text).not.toContain('workspace:')
      expect(text).not.toContain('"source"')
      expect(manifest.private).toBeUndefined()
      expect(manifest.devDependencies).toBeUndefined()
      expect(Object.keys(manifest)).toEqual(expect.arrayContaining(['repository', 'keywords', 'engines', 'license', 'description']))
      if (manifest.name !== 'dsh-core') expect(Object.keys(manifest.peerDependencies)).toEqual(expect.arrayContaining(['cordis', 'schemastery']))
      expect(Object.keys(manifest.dependencies ?? {})).not.toContain('cordis')
    }
  })

  it('is shown as written in the README: package.json, tsconfig.json and the host file are examples/host-app\'s', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8')
    const section = readme.slice(readme.indexOf('## Use DSH in your Cordis app'))
    const block = section.match(/```ts\n([\s\S]*?)```/)?.[1]
    expect(block).toBe(readFileSync(join(example, 'host.ts'), 'utf8'))
    const [manifestBlock, tsconfigBlock] = [...section.matchAll(/```json\n([\s\S]*?)```/g)].map((match) => match[1])
    expect(manifestBlock).toBe(readFileSync(join(example, 'package.json'), 'utf8'))
    expect(JSON.parse(manifestBlock!).type).toBe('module')
    expect(tsconfigBlock).toBe(readFileSync(join(example, 'tsconfig.json'), 'utf8'))
    // the commands the recipe gives, in order
    expect(section).toContain('npx tsc -p .        # writes out/host.js\nnode out/host.js    # read grep write / sections: ok / one cordis: ok')
  })
})

describe('a Cordis host app outside the workspace', { timeout: 180_000 }, () => {
  it('installs exactly one copy of cordis', () => {
    expect(copiesOf('cordis')).toEqual([join(host, 'node_modules', 'cordis')])
  })

  it('compiles the typed host file under moduleResolution bundler and runs it: tools in canonical order, one cordis at run time, no warning', () => {
    ok(run('npx', ['tsc', '-p', '.']))
    const result = run('node', ['out/host.js'])
    expect(ok(result).trim().split('\n')).toEqual(['read grep write', 'sections: ok', 'one cordis: ok'])
    expect(result.stderr).toBe('')
  })

  it('without "type": "module" in package.json, Node warns MODULE_TYPELESS_PACKAGE_JSON (why the recipe sets it)', () => {
    mkdirSync(join(host, 'typeless'), { recursive: true })
    cpSync(join(host, 'out', 'host.js'), join(host, 'typeless', 'host.js'))
    writeFileSync(join(host, 'typeless', 'package.json'), JSON.stringify({ name: 'typeless', private: true }))
    const result = run('node', ['typeless/host.js'])
    expect(ok(result).trim().split('\n')[0]).toBe('read grep write')
    expect(result.stderr).toContain('MODULE_TYPELESS_PACKAGE_JSON')
  })

  it('under nodenext, what the README says: TS2305/TS2693 in host.ts, an emitted file that fails with "Context is not defined"', () => {
    const tsconfig = JSON.parse(readFileSync(join(host, 'tsconfig.json'), 'utf8'))
    writeFileSync(join(host, 'tsconfig.nodenext.json'), JSON.stringify({
      ...tsconfig, compilerOptions: { ...tsconfig.compilerOptions, module: 'nodenext', moduleResolution: 'nodenext', outDir: 'out-nodenext' },
    }))
    const result = run('npx', ['tsc', '-p', 'tsconfig.nodenext.json'])
    expect(result.status).not.toBe(0)
    const codes = result.stdout.split('\n').filter((line) => /error TS\d+/.test(line)).map((line) => /^([^(]+)\(\d+,\d+\): error (TS\d+)/.exec(line)!.slice(1).join(' '))
    expect([...new Set(codes)].sort()).toEqual(['host.ts TS2305', 'host.ts TS2693', 'host.ts TS7006'])
    expect(result.stdout).toContain('TS2305: Module \'"cordis"\' has no exported member \'Service\'.')
    expect(result.stdout).toContain('TS2693: \'Context\' only refers to a type, but is being used as a value here.')
    // tsc writes the file anyway, and it fails
    const crashed = run('node', ['out-nodenext/host.js'])
    expect(crashed.status).toBe(1)
    expect(crashed.stderr).toContain('ReferenceError: Context is not defined')
  })

  it('under nodenext with skipLibCheck false, DSH\'s declarations fail only where cordis\'s unresolved re-exports make them', () => {
    writeFileSync(join(host, 'all.ts'), [...tarballs.keys()].map((name, index) => `export type * as m${index} from '${name}'\n`).join(''))
    writeFileSync(join(host, 'tsconfig.strict-libs.json'), JSON.stringify({
      compilerOptions: { target: 'ES2022', module: 'nodenext', moduleResolution: 'nodenext', strict: true, skipLibCheck: false, types: ['node'], noEmit: true },
      files: ['all.ts'],
    }))
    const result = run('npx', ['tsc', '-p', 'tsconfig.strict-libs.json'])
    const errors = result.stdout.split('\n').filter((line) => /error TS\d+/.test(line))
    // cordis's own: relative imports without extensions
    const extensionErrors = errors.filter((line) => /TS283[45]/.test(line))
    expect(extensionErrors.length).toBeGreaterThan(0)
    expect(extensionErrors.filter((line) => !line.startsWith('node_modules/cordis/'))).toEqual([])
    // DSH's: a name imported from cordis that cordis's index does not resolve, or a Context member its unresolved files add
    const dsh = errors.filter((line) => line.startsWith('node_modules/dsh-'))
    expect(dsh.length).toBeGreaterThan(0)
    expect(dsh.filter((line) => !/error TS2305: Module '"cordis"' has no exported member|error TS2339: Property '\w+' does not exist on type 'Context'/.test(line))).toEqual([])
    expect(dsh.some((line) => line.startsWith('node_modules/dsh-system-prompt/dist/service.d.ts'))).toBe(true)
  })

  it('boots a loader app file that mounts the agent bundle and answers a turn on the offline model', () => {
    expect(ok(run('node', ['agent.mjs', 'hello host']))).toBe('echo: hello host\n')
    expect(readdirSync(join(host, 'sessions')).filter((name) => name.endsWith('.jsonl'))).toHaveLength(1)
  })

  it('runs `npx dsh-stdio-demo` from the host folder', () => {
    expect(ok(run('npx', ['dsh-stdio-demo'], { input: 'hi\n' }))).toBe('echo: hi\n')
  })
})
