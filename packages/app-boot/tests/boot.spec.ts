import { mkdir, readFile, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Context } from 'cordis'
import { afterEach, describe, expect, it } from 'vitest'
import { AppBootError, boot, entryRunning } from '../src/index.ts'
import Probe from './fixtures/probe.ts'
import type { BootedApp } from '../src/index.ts'
import type {} from './fixtures/probe.ts'
import { resolveFixture } from './fixtures/names.ts'
import { rejection, writeApp } from './setup.ts'

const ACTIVE = 2
const running: BootedApp[] = []

async function start(text: string) {
  const { file, dir } = await writeApp(text)
  const app = await boot({ file, resolve: resolveFixture, logLevel: 'silent' })
  running.push(app)
  return { app, file, dir }
}

async function failure(text: string): Promise<{ error: any; file: string; dir: string }> {
  const { file, dir } = await writeApp(text)
  const error = await rejection(boot({ file, resolve: resolveFixture, logLevel: 'silent' }))
  expect(error).toBeInstanceOf(AppBootError)
  return { error, file, dir }
}

const exists = (path: string) => stat(path).then(() => true, () => false)

afterEach(async () => {
  await Promise.all(running.splice(0).map((app) => app.dispose()))
})

describe('boot', () => {
  it('boots every entry with its validated config', async () => {
    const { app } = await start(`
- id: probe
  name: fixture-probe
  config: { label: hello, toolOrder: [b, '<unlisted-tools>'] }
`)
    expect(app.ctx.get('probe')?.config).toEqual({ label: 'hello', toolOrder: ['b', '<unlisted-tools>'], disposeDelayMs: 0 })
    expect(app.entries.map((entry) => [entry.id, entry.fiber?.state])).toEqual([['probe', ACTIVE]])
    expect(app.entries[0].specifier).toBe(resolveFixture('fixture-probe'))
  })

  it('keeps an omitted toolOrder absent', async () => {
    const { app } = await start('- { id: probe, name: fixture-probe }\n')
    expect(app.ctx.get('probe')?.config).not.toHaveProperty('toolOrder')
  })

  it('imports a relative plugin name from the app file folder and gives it absolute config paths', async () => {
    const { file, dir } = await writeApp(`
- id: seen
  name: ./plugins/write-config.mjs
  config: { out: ./seen.json, data: [./data/a.txt, keep-me] }
`)
    await mkdir(join(dir, 'plugins'))
    await writeFile(join(dir, 'plugins', 'write-config.mjs'), [
      "import { writeFileSync } from 'node:fs'",
      'export default function apply(ctx, config) { writeFileSync(config.out, JSON.stringify(config)) }',
    ].join('\n'))
    const names: string[] = []
    const app = await boot({ file, resolve: (name) => (names.push(name), resolveFixture(name)), logLevel: 'silent' })
    running.push(app)
    expect(JSON.parse(await readFile(join(dir, 'seen.json'), 'utf8'))).toEqual({
      out: join(dir, 'seen.json'),
      data: [join(dir, 'data/a.txt'), 'keep-me'],
    })
    expect(names).toEqual([])
  })

  it('resolves bare names through the app-given resolve', async () => {
    const names: string[] = []
    const { file } = await writeApp('- { id: a, name: fixture-probe }\n- { id: b, name: fixture-record }\n')
    const app = await boot({ file, resolve: (name) => (names.push(name), resolveFixture(name)), logLevel: 'silent' })
    running.push(app)
    expect(names).toEqual(['fixture-probe', 'fixture-record'])
  })

  it('leaves a disabled entry unstarted and does not count it as a failure', async () => {
    const { app } = await start('- { id: off, name: fixture-throws, disabled: true }\n- { id: on, name: fixture-record }\n')
    expect(app.entries.map((entry) => [entry.id, entry.fiber?.state])).toEqual([['off', undefined], ['on', ACTIVE]])
  })

  it('names the enabled entry that runs a plugin (entryRunning), and none when no enabled entry does', async () => {
    const { app } = await start('- { id: off, name: fixture-probe, disabled: true }\n- { id: on, name: fixture-probe }\n- { id: r, name: fixture-record }\n')
    expect(entryRunning(app.entries, Probe)?.id).toBe('on')
    expect(entryRunning(app.entries.filter((entry) => entry.id !== 'on'), Probe)).toBeUndefined()
  })

  it('boots into a given context', async () => {
    const ctx = new Context()
    const { file } = await writeApp('- { id: r, name: fixture-record, config: { x: 1 } }\n')
    const app = await boot({ file, resolve: resolveFixture, ctx, logLevel: 'silent' })
    running.push(app)
    expect(app.ctx).toBe(ctx)
    expect(ctx.get('record')?.config).toEqual({ x: 1 })
  })

  it('dispose() runs the plugins\' dispose hooks and waits for them, once', async () => {
    const { app, dir } = await start(`
- id: probe
  name: fixture-probe
  config: { label: slow, marker: ./marker.txt, disposeDelayMs: 50 }
`)
    const marker = join(dir, 'marker.txt')
    expect(await exists(marker)).toBe(false)
    await app.dispose()
    expect(await readFile(marker, 'utf8')).toBe('disposed slow\n')
    expect(app.ctx.get('probe')).toBeUndefined()
    await app.dispose()
  })

  it('rejects an unknown log level', async () => {
    const { file } = await writeApp('[]\n')
    const error = await rejection(boot({ file, resolve: resolveFixture, logLevel: 'loud' as any }))
    expect(error.code).toBe('INVALID_OPTION')
    expect(error.message).toContain('unknown log level "loud" (a string); valid levels: silent, error, warn, info, debug')
  })
})

describe('boot failures', () => {
  it('names the file, the entry and the schema issue for a config that fails its schema', async () => {
    const { error, file } = await failure('- { id: app, name: fixture-probe, config: { toolOrder: 5 } }\n')
    expect(error.code).toBe('INVALID_CONFIG')
    expect(error.message).toBe(`${file}: entry "app" (fixture-probe): invalid config: $.toolOrder expected string[] | Schema<const> but got 5`)
  })

  it('refuses a misspelled config key, naming it and the valid keys', async () => {
    const { error, file } = await failure('- { id: app, name: fixture-probe, config: { lable: hello } }\n')
    expect(error.code).toBe('INVALID_CONFIG')
    expect(error.message).toBe(`${file}: entry "app" (fixture-probe): invalid config: unknown key $.lable; valid keys: label, toolOrder, marker, disposeDelayMs`)
  })

  it('refuses an entry whose config has a "__proto__" key beside a misspelled one', async () => {
    const { error, file } = await failure('- { id: app, name: fixture-probe, config: { __proto__: { label: x }, lable: y } }\n')
    expect(error.code).toBe('FORBIDDEN_KEY')
    expect(error.message).toMatch(new RegExp(`^${file}: line 1, column 45: key "__proto__" is refused: .*; rename it$`))
  })

  it('refuses a misspelled key inside a list of mappings, and accepts any key of a dict', async () => {
    const { app } = await start('- { id: ok, name: fixture-lists, config: { tools: [{ name: a, meta: { anything: 1 } }] } }\n')
    expect(app.entries[0].fiber?.state).toBe(ACTIVE)
    const { error, file } = await failure('- { id: l, name: fixture-lists, config: { tools: [{ name: a }, { name: b, reslt: x }] } }\n')
    expect(error.code).toBe('INVALID_CONFIG')
    expect(error.message).toBe(`${file}: entry "l" (fixture-lists): invalid config: unknown key $.tools[1].reslt; valid keys: name, result, meta`)
  })

  it('names the misspelled key rather than the required value it left missing', async () => {
    const { error, file } = await failure('- { id: l, name: fixture-lists, config: { tools: [{ nme: a }] } }\n')
    expect(error.code).toBe('INVALID_CONFIG')
    expect(error.message).toBe(`${file}: entry "l" (fixture-lists): invalid config: unknown key $.tools[0].nme; valid keys: name, result, meta`)
  })

  it('names an unknown package', async () => {
    const { error, file } = await failure('- { id: x, name: dsh-no-such-plugin }\n')
    expect(error.code).toBe('UNKNOWN_PLUGIN')
    expect(error.message).toMatch(new RegExp(`^${file}: entry "x" \\(dsh-no-such-plugin\\): cannot resolve plugin: .*dsh-no-such-plugin`))
    expect(error.message).not.toContain('\n')
  })

  it('names a relative plugin file that does not exist', async () => {
    const { error, file, dir } = await failure('- { id: x, name: ./missing.mjs }\n')
    expect(error.code).toBe('UNKNOWN_PLUGIN')
    expect(error.message).toContain(`${file}: entry "x" (${join(dir, 'missing.mjs')}): cannot load plugin: `)
    expect(error.message).toContain('missing.mjs')
  })

  // [what, app file, code, the message (given the file's path), whether that is the whole message]
  it.each<[string, string, string, (file: string) => string, boolean]>([
    ['names a module that exports no plugin', '- { id: x, name: fixture-not-a-plugin }\n', 'PLUGIN_FAILED',
      () => 'entry "x" (fixture-not-a-plugin): cannot load plugin: invalid plugin', false],
    ['names a plugin whose apply throws, in one line', '- { id: t, name: fixture-throws }\n', 'PLUGIN_FAILED',
      (file) => `${file}: entry "t" (fixture-throws): failed to start: cannot open port 0 (second line)`, true],
    ['names a plugin that waits for a service no entry provides', '- { id: n, name: fixture-needs-service }\n', 'MISSING_SERVICE',
      () => 'entry "n" (fixture-needs-service): never started: no entry provides the service(s) it injects: "nowhere"', false],
    ['prints only the real cause when other entries wait for what the failed one would provide',
      '- { id: t, name: fixture-throws }\n- { id: n, name: fixture-needs-service }\n', 'PLUGIN_FAILED',
      (file) => `${file}: entry "t" (fixture-throws): failed to start: cannot open port 0 (second line)`, true],
    ['names a nested plugin that fails while its parent keeps running', '- { id: nb, name: fixture-nested-bad }\n', 'INVALID_CONFIG',
      () => 'entry "nb" (fixture-nested-bad): plugin "Probe": invalid config: $.label expected string but got 42', false],
  ])('%s', async (_, yaml, code, message, whole) => {
    const { error, file } = await failure(yaml)
    expect(error.code).toBe(code)
    if (whole) expect(error.message).toBe(message(file))
    else expect(error.message).toContain(message(file))
  })

  it('reports every failed entry in one AppBootError, one line each, in file order', async () => {
    const { error, file } = await failure(`
- { id: t, name: fixture-throws }
- { id: ok, name: fixture-record }
- { id: app, name: fixture-probe, config: { toolOrder: 5 } }
`)
    expect(error.failures.map((failure: any) => [failure.entry, failure.code])).toEqual([['t', 'PLUGIN_FAILED'], ['app', 'INVALID_CONFIG']])
    const lines = error.message.split('\n')
    expect(lines).toHaveLength(2)
    for (const line of lines) expect(line.startsWith(`${file}: entry "`)).toBe(true)
    expect(error.code).toBe('PLUGIN_FAILED')
  })

  it('disposes the entries that did start when another one fails', async () => {
    const { dir } = await failure(`
- { id: good, name: fixture-probe, config: { label: good, marker: ./marker.txt } }
- { id: bad, name: fixture-throws }
`)
    expect(await readFile(join(dir, 'marker.txt'), 'utf8')).toBe('disposed good\n')
  })

  it('lets go of its unhandled-rejection guard after a failed boot', async () => {
    const before = process.listenerCount('unhandledRejection')
    await failure('- { id: t, name: fixture-throws }\n')
    await new Promise((resolve) => setImmediate(resolve))
    expect(process.listenerCount('unhandledRejection')).toBe(before)
  })

  it('reports a YAML syntax error with line and column before starting anything', async () => {
    const { error, file } = await failure('- id: a\n  name: x\n - id: b\n')
    expect(error.code).toBe('YAML_SYNTAX')
    expect(error.message).toMatch(new RegExp(`^${file}: YAML syntax error at line 3, column 2: `))
  })
})
