import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { AppBootError, boot } from '../src/index.ts'
import { activeConditions } from '../src/plugin-names.ts'
import type { BootedApp } from '../src/index.ts'
import { resolveFixture } from './fixtures/names.ts'
import { rejection, writeApp } from './setup.ts'

const running: BootedApp[] = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((app) => app.dispose()))
})

/** A plugin module that writes `{ from, config }` to `config.out`: which copy of a plugin ran, and with what. */
const recorder = (from: string) => [
  "import { writeFileSync } from 'node:fs'",
  `export default function apply(ctx, config) { writeFileSync(config.out, JSON.stringify({ from: ${JSON.stringify(from)}, config })) }`,
].join('\n')

/** Writes a package folder: `package.json` with `manifest` and the given files. */
async function writePackage(dir: string, manifest: object, files: Record<string, string>) {
  await mkdir(dir, { recursive: true })
  await writeFile(join(dir, 'package.json'), JSON.stringify(manifest))
  for (const [name, text] of Object.entries(files)) {
    await mkdir(join(dir, name, '..'), { recursive: true })
    await writeFile(join(dir, name), text)
  }
}

async function start(file: string, resolve: (name: string) => string = resolveFixture) {
  const app = await boot({ file, resolve, logLevel: 'silent' })
  running.push(app)
  return app
}

const seen = async (dir: string) => JSON.parse(await readFile(join(dir, 'seen.json'), 'utf8'))

describe('plugin names of an app file', () => {
  it('resolves a package installed next to the app file before the app\'s own dependencies', async () => {
    const { file, dir } = await writeApp('- { id: a, name: some-dsh-plugin, config: { out: ./seen.json } }\n')
    await writePackage(join(dir, 'node_modules', 'some-dsh-plugin'), { name: 'some-dsh-plugin', type: 'module', exports: { '.': { import: './dist/index.js' } } },
      { 'dist/index.js': recorder('next to the app file') })
    const asked: string[] = []
    await start(file, (name) => { asked.push(name); return resolveFixture('fixture-probe') })
    expect(await seen(dir)).toEqual({ from: 'next to the app file', config: { out: join(dir, 'seen.json') } })
    expect(asked).toEqual([])
  })

  it('looks in the node_modules of the folders above the app file too', async () => {
    const { dir } = await writeApp('')
    await mkdir(join(dir, 'apps', 'mine'), { recursive: true })
    const file = join(dir, 'apps', 'mine', 'app.yml')
    await writeFile(file, `- { id: a, name: some-dsh-plugin, config: { out: ${join(dir, 'seen.json')} } }\n`)
    await writePackage(join(dir, 'node_modules', 'some-dsh-plugin'), { name: 'some-dsh-plugin', type: 'module', main: 'main.js' }, { 'main.js': recorder('a parent folder') })
    await start(file)
    expect((await seen(dir)).from).toBe('a parent folder')
  })

  it('asks the app\'s resolve for a name no package next to the file provides', async () => {
    const { file } = await writeApp('- { id: a, name: fixture-probe }\n')
    const asked: string[] = []
    const app = await start(file, (name) => { asked.push(name); return resolveFixture(name) })
    expect(asked).toEqual(['fixture-probe'])
    expect(app.entries[0]!.specifier).toBe(resolveFixture('fixture-probe'))
  })

  it('fails in one line naming both places when neither has the package', async () => {
    const { file, dir } = await writeApp('- { id: x, name: dsh-nowhere }\n')
    const error = await rejection(boot({ file, resolve: (name) => import.meta.resolve(name), logLevel: 'silent' }))
    expect(error).toBeInstanceOf(AppBootError)
    expect(error.code).toBe('UNKNOWN_PLUGIN')
    expect(error.message).toBe(`${file}: entry "x" (dsh-nowhere): cannot resolve plugin: cannot find package "dsh-nowhere" next to the app file `
      + `(node_modules of ${dir} or a folder above it) or among the app's own dependencies; install it next to the app file (npm i dsh-nowhere) or name a file or folder (./…)`)
  })

  it('does not fall back when the package next to the file is broken', async () => {
    const { file, dir } = await writeApp('- { id: x, name: broken-plugin }\n')
    await writePackage(join(dir, 'node_modules', 'broken-plugin'), { name: 'broken-plugin', type: 'module', exports: { '.': { require: './index.cjs' } } }, {})
    const error = await rejection(boot({ file, resolve: () => resolveFixture('fixture-probe'), logLevel: 'silent' }))
    expect(error.code).toBe('UNKNOWN_PLUGIN')
    expect(error.message).toMatch(/^[^\n]*entry "x" \(broken-plugin\): cannot resolve plugin: [^\n]*broken-plugin/)
  })

  it('imports a folder path with a package.json through its exports, or its main', async () => {
    const { file, dir } = await writeApp([
      '- { id: a, name: ./plugins/exported, config: { out: ./seen.json } }',
      '- { id: b, name: ./plugins/plain, config: { out: ./seen-b.json } }',
    ].join('\n'))
    await writePackage(join(dir, 'plugins', 'exported'), { name: 'exported', type: 'module', exports: { '.': { import: './lib/entry.js' } } }, { 'lib/entry.js': recorder('exports') })
    await writePackage(join(dir, 'plugins', 'plain'), { type: 'module', main: './start.js' }, { 'start.js': recorder('main') })
    const app = await start(file)
    expect((await seen(dir)).from).toBe('exports')
    expect(JSON.parse(await readFile(join(dir, 'seen-b.json'), 'utf8')).from).toBe('main')
    expect(app.entries.map((entry) => entry.specifier.replace(`file://${dir}`, ''))).toEqual(['/plugins/exported/lib/entry.js', '/plugins/plain/start.js'])
  })

  it('refuses a folder path without a package.json, naming the folder and what to do', async () => {
    const { file, dir } = await writeApp('- { id: a, name: ./plugins/bare }\n')
    await mkdir(join(dir, 'plugins', 'bare'), { recursive: true })
    const error = await rejection(boot({ file, resolve: resolveFixture, logLevel: 'silent' }))
    expect(error.message).toBe(`${file}: entry "a" (${`file://${dir}/plugins/bare`}): cannot resolve plugin: plugin path ${dir}/plugins/bare is a folder and it has no package.json; `
      + 'name the plugin\'s file (e.g. ./plugin/index.js) or give the folder a package.json')
  })

  it('resolves with the conditions the process runs with', async () => {
    expect([...activeConditions([], '')]).toEqual(['node', 'import'])
    expect([...activeConditions(['--conditions=source', '--import', 'tsx'], '-C dev')]).toEqual(['node', 'import', 'source', 'dev'])
    expect([...activeConditions(['--conditions', 'source'], '')]).toContain('source')
  })
})
