import { mkdir, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { TOOL_ORDER_REST } from 'dsh-system-prompt'
import { testServer } from 'dsh-tools-mcp/testing'
import { inspectApp } from '../src/inspect.ts'
import { renderInspection } from '../src/render.ts'
import { recordSession, runBin, spineEntry, staticEntry, tempDir, writeApp, writePlugin } from './setup.ts'

/** Two tools-static entries whose delays register the tools in neither file nor name order. */
const racing = [
  staticEntry('late', [{ name: 'zeta', delayMs: 90 }, { name: 'beta' }]),
  staticEntry('early', [{ name: 'mid', delayMs: 150 }, { name: 'alpha', delayMs: 40 }]),
]

const toolLines = (stdout: string) => stdout.split('\n').filter((line) => /^\s+\d+\. /.test(line)).map((line) => line.trim().split(/\s{2,}/))

describe('dsh-prompt inspect', () => {
  it('lists tools in code-unit order with owner and reason, after delayed registrations arrive', async () => {
    const dir = await tempDir()
    await writeApp(dir, 'app.yml', [spineEntry(), ...racing])
    const { code, stdout, stderr } = await runBin(['inspect', 'app.yml', '--settle', '0'], dir)
    expect(stderr).toBe('')
    expect(code).toBe(0)
    expect(toolLines(stdout)).toEqual([
      ['1. alpha', 'tools-static [early]', 'lexicographic (code-unit order)'],
      ['2. beta', 'tools-static [late]', 'lexicographic (code-unit order)'],
      ['3. mid', 'tools-static [early]', 'lexicographic (code-unit order)'],
      ['4. zeta', 'tools-static [late]', 'lexicographic (code-unit order)'],
    ])
    expect(stdout).toContain('no toolOrder: code-unit lexicographic order')
    // the startup barrier held the app until the slowest delayed registration (mid, 150 ms) was in
    const ready = /^settled: app ready in (\d+) ms, \d+ ms after boot$/m.exec(stdout)
    expect(Number(ready?.[1])).toBeGreaterThanOrEqual(145)
  })

  it.each([
    ['explains listed positions and the rest entry when toolOrder is set', ['zeta', TOOL_ORDER_REST, 'alpha'], [
      ['1. zeta', 'tools-static [late]', 'listed position 1'],
      ['2. beta', 'tools-static [late]', 'rest entry (code-unit order) at listed position 2'],
      ['3. mid', 'tools-static [early]', 'rest entry (code-unit order) at listed position 2'],
      ['4. alpha', 'tools-static [early]', 'listed position 3'],
    ]],
    ['explains a prefix group by its entry and position, through the app config chain', ['m*', TOOL_ORDER_REST, 'z*', 'alpha'], [
      ['1. mid', 'tools-static [early]', 'group `m*`, position 1'],
      ['2. beta', 'tools-static [late]', 'rest entry (code-unit order) at listed position 2'],
      ['3. zeta', 'tools-static [late]', 'group `z*`, position 3'],
      ['4. alpha', 'tools-static [early]', 'listed position 4'],
    ]],
  ])('%s', async (_, toolOrder, expected) => {
    const dir = await tempDir()
    await writeApp(dir, 'app.yml', [spineEntry({ toolOrder }), ...racing])
    const { code, stdout } = await runBin(['inspect', 'app.yml'], dir)
    expect(code).toBe(0)
    expect(toolLines(stdout)).toEqual(expected)
    expect(stdout).toContain(`toolOrder: ${toolOrder.join(', ')}`)
  })

  it('prints each section under a header with its name and order, rendered with the loop context', async () => {
    const dir = await tempDir()
    await writeApp(dir, 'app.yml', [spineEntry({ persona: 'You review code in {{cwd}} for {{model}}.' })])
    const { code, stdout } = await runBin(['inspect', 'app.yml'], dir)
    expect(code).toBe(0)
    const lines = stdout.split('\n')
    const identity = lines.findIndex((line) => /^── section 1\/2: harness:identity \(order -100\)/.test(line))
    const persona = lines.findIndex((line) => /^── section 2\/2: deployment:persona \(order 0\)/.test(line))
    expect(identity).toBeGreaterThan(0)
    expect(persona).toBeGreaterThan(identity)
    expect(lines[persona + 1]).toBe('You review code in /srv/project for scripted-echo.')
    expect(stdout).toContain('Tools: 0')
  })

  it('prints the runtime context after the sections, rendered, and keeps it out of the header', async () => {
    const dir = await tempDir()
    await writeApp(dir, 'app.yml', [spineEntry({ persona: 'Be brief.', runtimeContext: 'The working directory is {{cwd}}.' })])
    const { code, stdout } = await runBin(['inspect', 'app.yml'], dir)
    expect(code).toBe(0)
    const lines = stdout.split('\n')
    const heading = lines.indexOf('Runtime context: 1 context(s), after the prefix: a message when it changes, not in the header')
    expect(heading).toBeGreaterThan(lines.findIndex((line) => line.startsWith('── section 2/2: deployment:persona')))
    expect(lines.slice(heading + 1, heading + 3)).toEqual(['── deployment:context', 'The working directory is /srv/project.'])
    const json = JSON.parse((await runBin(['inspect', 'app.yml', '--json'], dir)).stdout)
    expect(json.runtimeContext).toEqual([{ name: 'deployment:context', text: 'The working directory is /srv/project.' }])
    expect(json.header.system).not.toContain('/srv/project')
  })

  it('names the reasons a system-prompt/assemble listener creates: moved, added, removed, added section', async () => {
    const dir = await tempDir()
    await writePlugin(dir, 'listener.mjs', 'reorderer', ['systemPrompt'], `
  ctx.systemPrompt.section({ name: 'repo:rules', order: 10, text: 'Rules.' })
  ctx.on('system-prompt/assemble', async (assembly, context, next) => {
    const result = await next()
    const tools = result.tools.filter((tool) => tool.name !== 'drop')
    tools.unshift(tools.pop())
    tools.push({ name: 'extra', description: 'Added late.', parameters: { type: 'object', properties: {} } })
    return { ...result, tools, sections: [...result.sections, { name: 'late:note', text: 'Late note.' }] }
  })
`)
    await writeApp(dir, 'app.yml', [
      spineEntry(),
      staticEntry('tools', [{ name: 'a' }, { name: 'b' }, { name: 'c' }, { name: 'drop' }, { name: 'z' }]),
      { id: 'listener', name: './listener.mjs' },
    ])
    const { code, stdout, stderr } = await runBin(['inspect', 'app.yml', '--json'], dir)
    expect(stderr).toBe('')
    expect(code).toBe(0)
    const report = JSON.parse(stdout)
    expect(report.tools.map((tool: any) => [tool.name, tool.reason, tool.detail, tool.plugin])).toEqual([
      ['z', 'moved', 'moved by a system-prompt/assemble listener (canonical position 5)', 'tools-static'],
      ['a', 'lexicographic', 'lexicographic (code-unit order)', 'tools-static'],
      ['b', 'lexicographic', 'lexicographic (code-unit order)', 'tools-static'],
      ['c', 'lexicographic', 'lexicographic (code-unit order)', 'tools-static'],
      ['extra', 'added', 'added by a system-prompt/assemble listener', 'a system-prompt/assemble listener'],
    ])
    expect(report.removedByListeners).toEqual(['drop'])
    expect(report.sections.map((section: any) => [section.name, section.order])).toEqual([
      ['harness:identity', -100], ['deployment:persona', 0], ['repo:rules', 10], ['late:note', null],
    ])
  })

  it('prints one JSON object whose header and fingerprint match what the loop logs', async () => {
    const dir = await tempDir()
    const spine = { persona: 'Be brief.', cwd: '/srv/project', toolOrder: ['read', TOOL_ORDER_REST] }
    const tools = [{ name: 'write' }, { name: 'read', parameters: { type: 'object', properties: { path: { type: 'string' } } } }]
    await writeApp(dir, 'app.yml', [spineEntry(spine), staticEntry('t', tools)])
    const { code, stdout } = await runBin(['inspect', 'app.yml', '--json'], dir)
    expect(code).toBe(0)
    const report = JSON.parse(stdout)
    expect(Object.keys(report).sort()).toEqual(['context', 'file', 'fingerprint', 'header', 'removedByListeners', 'runtimeContext', 'sections', 'settle', 'toolOrder', 'tools'])
    expect(report.context).toEqual({ model: 'scripted-echo', cwd: '/srv/project' })
    expect(report.toolOrder).toEqual(['read', TOOL_ORDER_REST])
    expect(report.tools[0]).toEqual({
      name: 'read', position: 1, canonicalPosition: 1, reason: 'listed', detail: 'listed position 1',
      plugin: 'tools-static', entry: 't', server: null, sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    })
    expect(Object.keys(report.fingerprint).sort()).toEqual(['header', 'model', 'perTool', 'prefix', 'system', 'tools'])

    const root = join(dir, 'sessions')
    await mkdir(root)
    const { file } = await recordSession({ root, id: 'x', spine, tools: tools.map((tool) => ({ ...tool, delayMs: 0 })), prompts: ['hi'] })
    const logged = (await import('node:fs')).readFileSync(file, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line))
      .find((event) => event.type === 'request/header').data.header
    expect(report.header).toEqual(logged)
    expect(JSON.stringify(report.header)).toBe(JSON.stringify(logged))
    const { createHash } = await import('node:crypto')
    expect(report.fingerprint.header).toBe(createHash('sha256').update(JSON.stringify(logged)).digest('hex'))
  })

  it('fails with the message a turn would get when toolOrder names an unregistered tool', async () => {
    const dir = await tempDir()
    const spine = { toolOrder: ['ghost', TOOL_ORDER_REST] }
    await writeApp(dir, 'app.yml', [spineEntry(spine), staticEntry('t', [{ name: 'real' }])])
    const { code, stdout, stderr } = await runBin(['inspect', 'app.yml'], dir)
    expect(code).toBe(1)
    expect(stdout).toBe('')
    expect(stderr).toBe('toolOrder lists unregistered tool "ghost"; known tools: real\n')

    const root = join(dir, 'sessions')
    await mkdir(root)
    const { results } = await recordSession({ root, id: 'm', spine: { ...spineEntry(spine).config, persistenceRoot: root }, tools: [{ name: 'real' }], prompts: ['hi'] })
    expect(results[0].reason).toBe('error')
    expect(`${results[0].error}\n`).toBe(stderr)
  })

  it('fails with the one AppBootError line when an entry cannot load', async () => {
    const dir = await tempDir()
    await writeApp(dir, 'app.yml', [spineEntry(), { id: 'x', name: 'dsh-no-such-plugin' }])
    const missing = await runBin(['inspect', 'app.yml'], dir)
    expect(missing.code).toBe(1)
    expect(missing.stdout).toBe('')
    expect(missing.stderr).toMatch(/^app\.yml: entry "x" \(dsh-no-such-plugin\): cannot resolve plugin: cannot find package "dsh-no-such-plugin"[^\n]*\n$/)

    await writeApp(dir, 'bad.yml', [spineEntry({ persona: 5 })])
    const invalid = await runBin(['inspect', 'bad.yml'], dir)
    expect(invalid.code).toBe(1)
    expect(invalid.stderr).toMatch(/^bad\.yml: entry "spine" \(dsh-harness\): invalid config: [^\n]*persona[^\n]*\n$/)

    const unreadable = await runBin(['inspect', 'nope.yml'], dir)
    expect(unreadable.code).toBe(1)
    expect(unreadable.stderr).toMatch(/^nope\.yml: cannot read app file: ENOENT[^\n]*\n$/)

    await writeFile(join(dir, 'syntax.yml'), '- id: a\n  name: [\n')
    const syntax = await runBin(['inspect', 'syntax.yml'], dir)
    expect(syntax.code).toBe(1)
    expect(syntax.stderr).toMatch(/^syntax\.yml: YAML syntax error at line \d+, column \d+[^\n]*\n$/)
  })

  it('resolves plugin names from the app file folder first', async () => {
    const dir = await tempDir()
    const pkg = join(dir, 'node_modules', 'dsh-folder-only-tools')
    await mkdir(pkg, { recursive: true })
    await writeFile(join(pkg, 'package.json'), JSON.stringify({ name: 'dsh-folder-only-tools', type: 'module', exports: './index.mjs' }))
    await writePlugin(pkg, 'index.mjs', 'folder-tools', ['tools'], `
  ctx.tools.register({ name: 'local', description: 'Found next to the app file.', parameters: { type: 'object', properties: {} }, execute: () => 'ok' })
`)
    await writeApp(dir, 'app.yml', [spineEntry(), { id: 'mine', name: 'dsh-folder-only-tools' }])
    const { code, stdout, stderr } = await runBin(['inspect', 'app.yml'], dir)
    expect(stderr).toBe('')
    expect(code).toBe(0)
    expect(toolLines(stdout)).toEqual([['1. local', 'folder-tools [mine]', 'lexicographic (code-unit order)']])
  })

  it.each(['stdio-demo', 'acp-demo'])('inspects the shipped %s app file, finding the app package from its folder', async (app) => {
    const apps = join(dirname(fileURLToPath(import.meta.url)), '../../../apps')
    const { code, stdout, stderr } = await runBin(['inspect', join(app, 'cordis.yml'), '--json'], apps)
    expect(stderr).toBe('')
    expect(code).toBe(0)
    const report = JSON.parse(stdout)
    expect(report.tools.length).toBeGreaterThan(0)
    for (const tool of report.tools) expect(['listed', 'rest', 'lexicographic']).toContain(tool.reason)
    expect(report.sections.map((section: any) => section.name)).toContain('harness:identity')
  })

  it('waits --settle ms of quiet for registrations it cannot predict', async () => {
    const dir = await tempDir()
    await writePlugin(dir, 'late.mjs', 'late-tools', ['tools'], `
  const timer = setTimeout(() => ctx.tools.register({ name: 'late', description: 'Late.', parameters: { type: 'object', properties: {} }, execute: () => '' }), 60)
  ctx.effect(() => () => clearTimeout(timer))
`)
    await writeApp(dir, 'app.yml', [spineEntry(), { id: 'late', name: './late.mjs' }])
    const { code, stdout } = await runBin(['inspect', 'app.yml', '--settle', '400', '--json'], dir)
    expect(code).toBe(0)
    expect(JSON.parse(stdout).tools.map((tool: any) => [tool.name, tool.plugin, tool.entry])).toEqual([['late', 'late-tools', 'late']])
  })

  it('names the MCP server that contributed each MCP tool', async () => {
    const dir = await tempDir()
    const servers = {
      docs: testServer({ tools: [{ name: 'search', description: 'Search the docs.' }] }),
      tickets: testServer({ tools: [{ name: 'open', description: 'Open a ticket.' }] }),
    }
    await writeApp(dir, 'app.yml', [spineEntry(), staticEntry('local', [{ name: 'alpha' }]), { id: 'mcp', name: 'dsh-tools-mcp', config: { servers } }])
    // in-process (the bin is covered above); the servers are real child processes either way
    const inspection = await inspectApp({ file: join(dir, 'app.yml') })
    expect(inspection.tools.map((tool) => [tool.name, tool.plugin, tool.entry, tool.server])).toEqual([
      ['alpha', 'tools-static', 'local', null],
      ['mcp__docs__search', 'tools-mcp', 'mcp', 'docs'],
      ['mcp__tickets__open', 'tools-mcp', 'mcp', 'tickets'],
    ])
    expect(toolLines(renderInspection(inspection)).map((cells) => cells.slice(0, 2))).toEqual([
      ['1. alpha', 'tools-static [local]'],
      ['2. mcp__docs__search', 'tools-mcp [mcp] MCP server "docs"'],
      ['3. mcp__tickets__open', 'tools-mcp [mcp] MCP server "tickets"'],
    ])
  })

  it('fails with one line when no entry provides systemPrompt', async () => {
    const dir = await tempDir()
    await writeFile(join(dir, 'noop.mjs'), 'export const name = "noop"\nexport function apply() {}\n')
    await writeApp(dir, 'app.yml', [{ id: 'noop', name: './noop.mjs' }])
    const { code, stderr } = await runBin(['inspect', 'app.yml'], dir)
    expect(code).toBe(1)
    expect(stderr).toBe('app.yml: no entry provides the systemPrompt service, so there is no prompt to inspect\n')
  })
})
