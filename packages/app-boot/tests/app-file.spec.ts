import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { AppBootError } from '../src/index.ts'
import { loadAppFile } from '../src/app-file.ts'
import { rejection, writeApp } from './setup.ts'

describe('loadAppFile', () => {
  it('reads a list of entries with defaults for config and disabled', async () => {
    const { file } = await writeApp(`
- id: a
  name: some-plugin
  config: { persona: hi, count: 3 }
- id: b
  name: '@scope/other'
  disabled: true
- id: c
  name: third
  config:
`)
    expect(await loadAppFile(file)).toEqual([
      { id: 'a', name: 'some-plugin', config: { persona: 'hi', count: 3 }, disabled: false },
      { id: 'b', name: '@scope/other', config: {}, disabled: true },
      { id: 'c', name: 'third', config: {}, disabled: false },
    ])
  })

  it('resolves ./ and ../ strings anywhere in config against the file folder, not the cwd', async () => {
    const { file, dir } = await writeApp(`
- id: a
  name: some-plugin
  config:
    root: ./data
    parent: ../shared/x.json
    list: [./one, plain, /abs/path, .hidden, a/./b, '.', '..']
    deep: { deeper: [{ path: ./deep.txt }] }
    number: 5
`)
    const [entry] = await loadAppFile(file)
    expect(entry.config).toEqual({
      root: join(dir, 'data'),
      parent: resolve(dir, '../shared/x.json'),
      list: [join(dir, 'one'), 'plain', '/abs/path', '.hidden', 'a/./b', '.', '..'],
      deep: { deeper: [{ path: join(dir, 'deep.txt') }] },
      number: 5,
    })
    expect(entry.config.root).not.toBe(resolve('./data'))
  })

  it('turns a relative plugin name into a file URL in the file folder', async () => {
    const { file, dir } = await writeApp(`
- { id: a, name: ./plugins/mine.mjs }
- { id: b, name: ../up.ts }
- { id: c, name: bare-name }
`)
    const names = (await loadAppFile(file)).map((entry) => entry.name)
    expect(names).toEqual([
      pathToFileURL(join(dir, 'plugins/mine.mjs')).href,
      pathToFileURL(resolve(dir, '../up.ts')).href,
      'bare-name',
    ])
  })

  it('accepts an empty list', async () => {
    const { file } = await writeApp('[]\n')
    expect(await loadAppFile(file)).toEqual([])
  })

  const bad: [string, string, string, string[]][] = [
    ['a YAML syntax error', '- id: a\n  name: [unclosed\n', 'YAML_SYNTAX', ['YAML syntax error at line 3, column 1', 'Flow sequence']],
    ['a bad indentation', '- id: a\n   name: x\n  config: {}\n', 'YAML_SYNTAX', ['YAML syntax error at line 1, column 7', 'Nested mappings']],
    ['a mapping at the top level', 'id: a\nname: b\n', 'NOT_A_LIST', ['expected a list of entries', '{"id":"a","name":"b"} (a mapping)']],
    ['a scalar at the top level', 'hello\n', 'NOT_A_LIST', ['expected a list of entries', '"hello" (a string)']],
    ['an empty file', '', 'NOT_A_LIST', ['got an empty file']],
    ['an entry that is a string', '- just-a-name\n', 'INVALID_ENTRY', ['entry #1: expected a mapping', '"just-a-name" (a string)']],
    ['an entry without id', '- { id: a, name: x }\n- { name: y }\n', 'INVALID_ENTRY', ['entry #2: "id" must be a non-empty string, got undefined']],
    ['a numeric id', '- { id: 7, name: x }\n', 'INVALID_ENTRY', ['entry #1: "id" must be a non-empty string, got 7 (a number)']],
    ['an id with a colon', '- { id: "a:b", name: x }\n', 'INVALID_ENTRY', ['entry #1 "a:b": "id" must not contain ":"']],
    ['an entry without name', '- { id: a }\n', 'INVALID_ENTRY', ['entry #1 "a": "name" must be a non-empty string, got undefined']],
    ['an empty name', '- { id: a, name: "" }\n', 'INVALID_ENTRY', ['entry #1 "a": "name" must be a non-empty string, got "" (a string)']],
    ['a misspelled key', '- { id: a, name: x, confg: {} }\n', 'INVALID_ENTRY', ['entry #1 "a": unknown key "confg"; valid keys: id, name, config, disabled']],
    ['a config that is a list', '- { id: a, name: x, config: [1, 2] }\n', 'INVALID_ENTRY', ['entry #1 "a": "config" must be a mapping, got [1,2] (a list)']],
    ['a config that is a string', '- { id: a, name: x, config: fast }\n', 'INVALID_ENTRY', ['"config" must be a mapping, got "fast" (a string)']],
    ['disabled that is not a boolean', '- { id: a, name: x, disabled: "yes" }\n', 'INVALID_ENTRY', ['"disabled" must be true or false, got "yes" (a string)']],
    ['a duplicate id', '- { id: a, name: x }\n- { id: b, name: y }\n- { id: a, name: z }\n', 'DUPLICATE_ID', ['entry #3 "a": duplicate id "a" (entry #1 has it too)']],
  ]
  it.each(bad)('rejects %s with one AppBootError naming the file', async (_, text, code, parts) => {
    const { file } = await writeApp(text)
    const error = await rejection(loadAppFile(file))
    expect(error).toBeInstanceOf(AppBootError)
    expect(error.code).toBe(code)
    expect(error.message.startsWith(`${file}: `)).toBe(true)
    for (const part of parts) expect(error.message).toContain(part)
    expect(error.message).not.toContain('\n')
  })

  it('refuses an alias bomb with one line, fast and without expanding it', async () => {
    const levels = ['a: &a [x, x, x, x, x, x, x, x, x]']
    for (const [index, name] of [...'bcdefghij'].entries()) {
      const previous = String.fromCharCode(97 + index)
      levels.push(`${name}: &${name} [${Array(9).fill(`*${previous}`).join(', ')}]`)
    }
    // nine levels of nine: 9^10 strings if expanded, far past any memory
    const { file } = await writeApp(`- id: a\n  name: x\n  config:\n${levels.map((line) => `    ${line}`).join('\n')}\n`)
    const started = performance.now()
    const error = await rejection(loadAppFile(file))
    expect(performance.now() - started).toBeLessThan(1000)
    expect(error.code).toBe('YAML_SYNTAX')
    expect(error.message).toBe(`${file}: YAML aliases expand to more than 100 nodes; refusing the file (Excessive alias count indicates a resource exhaustion attack)`)
  })

  it('refuses an alias without its anchor at its line, not as an alias bomb', async () => {
    const { file } = await writeApp('- id: a\n  name: x\n  config: { one: *nowhere }\n')
    const error = await rejection(loadAppFile(file))
    expect(error.code).toBe('YAML_SYNTAX')
    expect(error.message).toBe(`${file}: line 3, column 18: alias "*nowhere" has no anchor "&nowhere" before it; define the anchor first`)
  })

  it('keeps a few aliases working', async () => {
    const { file } = await writeApp('- id: a\n  name: x\n  config: { one: &v [1, 2], two: *v }\n')
    expect((await loadAppFile(file))[0]!.config).toEqual({ one: [1, 2], two: [1, 2] })
  })

  it.each([
    ['in a config', '- id: a\n  name: x\n  config:\n    __proto__: { polluted: true }\n    modle: m\n', 'line 4, column 5'],
    ['as a map key (an MCP server name)', '- id: a\n  name: x\n  config:\n    servers:\n      one: { command: a }\n      "__proto__": { command: b }\n', 'line 6, column 7'],
    ['in a flow mapping (tool parameters)', '- { id: a, name: x, config: { parameters: { type: object, __proto__: { x: 1 } } } }\n', 'line 1, column 59'],
    ['as an entry key', '- { id: a, name: x, __proto__: {} }\n', 'line 1, column 21'],
  ])('refuses a "__proto__" key %s in one line naming the file and the line', async (_, text, at) => {
    const { file } = await writeApp(text)
    const error = await rejection(loadAppFile(file))
    expect(error.code).toBe('FORBIDDEN_KEY')
    expect(error.message).toBe(`${file}: ${at}: key "__proto__" is refused: JavaScript takes it as an object's prototype, not as data `
      + '(a map would lose the entry or change its defaults); rename it')
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it('keeps "constructor" and "prototype" keys as plain own keys', async () => {
    const { file } = await writeApp('- id: a\n  name: x\n  config: { servers: { constructor: { command: a }, prototype: { command: b } } }\n')
    const servers = (await loadAppFile(file))[0]!.config.servers as Record<string, unknown>
    expect(Object.keys(servers)).toEqual(['constructor', 'prototype'])
    expect(Object.getPrototypeOf(servers)).toBe(Object.prototype)
    expect(servers.constructor).toEqual({ command: 'a' })
  })

  it('accepts a UTF-8 byte order mark at the start of the file', async () => {
    const { file } = await writeApp('\uFEFF- { id: a, name: x, config: { persona: héllo } }\n')
    expect(await loadAppFile(file)).toEqual([{ id: 'a', name: 'x', config: { persona: 'héllo' }, disabled: false }])
  })

  it('refuses bytes that are not UTF-8, naming the byte offset and the line', async () => {
    const { file, dir } = await writeApp('')
    const good = Buffer.from('- id: a\n  name: x\n  config: { persona: "caf')
    await writeFile(file, Buffer.concat([good, Buffer.from([0xe9, 0x22, 0x20, 0x7d, 0x0a])])) // Latin-1 "é"
    const error = await rejection(loadAppFile(file))
    expect(error.code).toBe('INVALID_ENCODING')
    expect(error.message).toBe(`${file}: not valid UTF-8 at byte offset ${good.length} (line 3, bytes e9 22 20 7d); save the file as UTF-8`)
    expect(dir).toBeTruthy()
  })

  it.each([
    ['!foo', '- { id: a, name: x, config: { persona: !foo bar } }\n', 'line 1, column 40'],
    ['!!binary', '- id: a\n  name: x\n  config:\n    key: !!binary aGk=\n', 'line 4, column 10'],
    ['!!set', '- id: a\n  name: x\n  config: !!set { a }\n', 'line 3, column 11'],
    ['!!timestamp', '- { id: a, name: x, config: { at: !!timestamp 2001-12-14 } }\n', 'line 1, column 35'],
  ])('refuses the YAML tag %s, naming the tag, the file and the line', async (tag, text, at) => {
    const { file } = await writeApp(text)
    const error = await rejection(loadAppFile(file))
    expect(error.code).toBe('YAML_SYNTAX')
    expect(error.message).toBe(`${file}: ${at}: unknown YAML tag "${tag}"; app files take plain values `
      + '(tags of the YAML core schema only: !!str, !!int, !!float, !!bool, !!null, !!seq, !!map)')
  })

  it('keeps the tags of the core schema working', async () => {
    const { file } = await writeApp('- { id: a, name: x, config: { s: !!str 5, i: !!int "7", b: !!bool "true", n: !!null "" } }\n')
    expect((await loadAppFile(file))[0]!.config).toEqual({ s: '5', i: 7, b: true, n: null })
  })

  it('rejects a missing file with APP_FILE_UNREADABLE', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dsh-app-boot-'))
    const error = await rejection(loadAppFile(join(dir, 'nope.yml')))
    expect(error).toBeInstanceOf(AppBootError)
    expect(error.code).toBe('APP_FILE_UNREADABLE')
    expect(error.message).toContain(`${join(dir, 'nope.yml')}: cannot read app file: ENOENT`)
  })
})
