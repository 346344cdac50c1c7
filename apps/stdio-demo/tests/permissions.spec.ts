import { readFile, mkdir } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { appYaml, headers, run, sessionEvents, tempDir, writeApp } from './setup.ts'
import { describeOnTerminal, openTerminal } from './terminal.ts'

const TOOLS = [{ name: 'get_time', result: 'noon' }, { name: 'list_dir', result: 'a b' }]
const ASK = { permissions: { default: 'ask' } }
const question = (name: string, args = '{}') => `? allow ${name} ${args} — [y] once · [a] always (this session) · [n] deny: `
const count = (text: string, part: string) => text.split(part).length - 1

const decisions = (events: { type: string; data: any }[]) =>
  events.filter((event) => event.type === 'permission/decision').map(({ data }) => [data.name, data.decision, data.by, data.answer])

/** The bin of @modelcontextprotocol/server-filesystem, installed for these tests. */
const FILESYSTEM_SERVER = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-filesystem/dist/index.js')

describeOnTerminal('permissions in the REPL (a pseudo-terminal)', () => {
  it('asks once per call: once, always for this session, deny; Ctrl-C while asking cancels the turn; --continue remembers "always"',
    { timeout: 40_000 }, async () => {
      const { file, sessions } = await writeApp(appYaml(ASK, TOOLS))
      const { screen, until, type, exited } = openTerminal([file], { TERM: 'dumb' })
      let at = await until('> ')
      const ask = async (line: string, ...texts: string[]) => {
        type(`${line}\r`)
        for (const text of texts) at = await until(text, at)
      }
      await ask('/call get_time {}', question('get_time'))
      await ask('y', 'tool get_time returned: noon', '> ')
      await ask('/call get_time {}', question('get_time'))
      await ask('a', 'tool get_time returned: noon', '> ')
      await ask('/call get_time {}', 'tool get_time returned: noon', '> ')
      expect(count(screen(), question('get_time'))).toBe(2)
      await ask('/call list_dir {}', question('list_dir'))
      await ask('maybe', question('list_dir'))
      await ask('n', 'tool list_dir returned: the user denied the call of tool "list_dir"; it did not run', '> ')
      await ask('/call list_dir {}', question('list_dir'))
      type('\x03')
      at = await until('(cancelled)', at)
      await ask('/exit')
      expect(await exited).toBe(0)
      expect(decisions(await sessionEvents(sessions))).toEqual([
        ['get_time', 'allow', 'user', 'allow-once'], ['get_time', 'allow', 'user', 'allow-always'], ['get_time', 'allow', 'session', undefined],
        ['list_dir', 'deny', 'user', 'deny'], ['list_dir', 'deny', 'cancelled', undefined],
      ])

      const resumed = openTerminal([file, '--continue'], { TERM: 'dumb' })
      await resumed.until('> ')
      resumed.type('/call get_time {}\r')
      await resumed.until('tool get_time returned: noon')
      resumed.type('/exit\r')
      expect(await resumed.exited).toBe(0)
      expect(resumed.screen()).not.toContain('? allow')
      expect(decisions(await sessionEvents(sessions)).at(-1)).toEqual(['get_time', 'allow', 'session', undefined])
    })

  it('runs a readOnlyHint tool of a real MCP server without asking, and asks a destructiveHint one every call without "always"',
    { timeout: 40_000 }, async () => {
      const { file, dir, sessions } = await writeApp([
        `- { id: app, name: dsh-stdio-demo, config: { persistenceRoot: ./sessions, permissions: { default: ask } } }`,
        '- id: mcp',
        '  name: dsh-tools-mcp',
        '  config:',
        `    servers: { filesystem: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(FILESYSTEM_SERVER)}, ./workspace] } }`,
      ].join('\n'))
      await mkdir(join(dir, 'workspace'))
      const path = join(dir, 'workspace', 'note.txt')
      const { screen, until, type, exited } = openTerminal([file], { TERM: 'dumb' })
      let at = await until('> ')
      const write = `{"path":${JSON.stringify(path)},"content":"hello"}`
      type(`/call mcp__filesystem__write_file ${write}\r`)
      const destructive = `? allow mcp__filesystem__write_file ${write} (it says it is destructive) — [y] once · [n] deny: `
      at = await until(destructive, at)
      type('a\r') // not offered: asked again
      at = await until(destructive, at)
      type('y\r')
      at = await until('tool mcp__filesystem__write_file returned:', at)
      expect(await readFile(path, 'utf8')).toBe('hello')
      type(`/call mcp__filesystem__read_text_file {"path":${JSON.stringify(path)}}\r`)
      at = await until('tool mcp__filesystem__read_text_file returned: hello', at)
      type(`/call mcp__filesystem__write_file ${write}\r`)
      at = await until(destructive, at)
      type('n\r')
      at = await until('the user denied', at)
      type('/exit\r')
      expect(await exited).toBe(0)
      expect(count(screen(), '? allow mcp__filesystem__read_text_file')).toBe(0)
      const events = await sessionEvents(sessions)
      expect(events.filter((event) => event.type === 'permission/decision').map(({ data }) => [data.name, data.by, data.answer ?? data.rule])).toEqual([
        ['mcp__filesystem__write_file', 'user', 'allow-once'],
        ['mcp__filesystem__read_text_file', 'policy', 'readOnlyHint'],
        ['mcp__filesystem__write_file', 'user', 'deny'],
      ])
    })
})

describeOnTerminal('the shipped cordis.yml on a terminal', () => {
  it('runs get_time unasked and asks before read_file', { timeout: 30_000 }, async () => {
    const cwd = await tempDir()
    const { until, type, exited } = openTerminal([], { TERM: 'dumb' }, '', cwd)
    let at = await until('> ')
    type('/call get_time {}\r')
    at = await until('tool get_time returned: (demo) it is 12:00 UTC', at)
    type('/call read_file {"path":"a"}\r')
    at = await until(question('read_file', '{"path":"a"}'), at)
    type('y\r')
    at = await until('tool read_file returned: (demo) the file is empty', at)
    type('/exit\r')
    expect(await exited).toBe(0)
  })
})

describe('permissions when piped', () => {
  it('gives a call that needs asking an error result naming the policy key, and the turn and the run go on', { timeout: 20_000 }, async () => {
    const { file, sessions } = await writeApp(appYaml({ permissions: { default: 'ask', allow: ['list_*'] } }, TOOLS))
    const exit = await run([file], '/call get_time {}\n/call list_dir {}\nhello\n')
    expect(exit.code).toBe(0)
    expect(exit.stdout).toBe([
      'tool get_time returned: tool "get_time" needs permission and there is no one to ask here (no terminal, no client), so it did not run; '
        + 'to let it run without asking, add it to permissions.allow in the app file (permissions.allow: ["get_time"]) or set permissions.default: allow',
      'tool list_dir returned: a b',
      'echo: hello',
      '',
    ].join('\n'))
    expect(exit.stderr).toContain('← (error) tool "get_time" needs permission')
    expect(decisions(await sessionEvents(sessions))).toEqual([['get_time', 'deny', 'unanswered', undefined], ['list_dir', 'allow', 'policy', undefined]])
  })

  it('sends the same request header with and without a policy', { timeout: 20_000 }, async () => {
    const bare = await writeApp(appYaml({}, TOOLS))
    const ruled = await writeApp(appYaml({ permissions: { default: 'deny', allow: ['get_time'], deny: ['list_dir'] } }, TOOLS))
    for (const app of [bare, ruled]) expect((await run([app.file], '/call get_time {}\n')).stdout).toBe('tool get_time returned: noon\n')
    const [one, two] = [headers(await sessionEvents(bare.sessions)), headers(await sessionEvents(ruled.sessions))]
    expect(one).toHaveLength(1)
    expect(two).toEqual(one)
  })

  it('refuses a bad policy at boot with one line naming the key', async () => {
    const { file } = await writeApp(appYaml({ permissions: { allow: ['mcp__*__read'] } }))
    const exit = await run([file], 'hello\n')
    expect(exit.code).toBe(1)
    expect(exit.stderr).toBe(`${file}: entry "app" (dsh-stdio-demo): failed to start: permissions.allow[0] is "mcp__*__read": "*" may only end a pattern, as in "mcp__github__*" (a prefix group)\n`)
    const wrong = await run([(await writeApp(appYaml({ permissions: { default: 'sometimes' } }))).file], 'hello\n')
    expect(wrong.code).toBe(1)
    expect(wrong.stderr).toMatch(/invalid config: \$\.permissions expected .*"ask" \| "allow" \| "deny".* but got \{"default":"sometimes"\}/)
  })
})
