import { readFile, readdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'
import { testServer } from '../../../packages/tools-mcp/src/testing.ts'
import { run, sessionEvents, writeApp } from './setup.ts'
import { describeOnTerminal, openTerminal } from './terminal.ts'

// dsh-tools-mcp by its built file: the stdio demo does not depend on the package
const TOOLS_MCP = fileURLToPath(new URL('../../../packages/tools-mcp/dist/index.js', import.meta.url))
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describeOnTerminal('the REPL shows what happened', () => {
  it('--continue prints the session id, its turn count and the conversation before the first prompt', { timeout: 30_000 }, async () => {
    const { file, sessions } = await writeApp('- { id: app, name: dsh-stdio-demo, config: { persistenceRoot: ./sessions } }\n')
    expect(await run([file], 'first question\nthe last question\n')).toMatchObject({ code: 0 })
    const id = (await readdir(sessions)).find((name) => name.endsWith('.jsonl'))!.slice(0, -'.jsonl'.length)
    const { screen, until, type, exited } = openTerminal([file, '--continue'], { TERM: 'dumb' })
    const at = await until(`resumed session ${id} · 2 turns`)
    await until('> ', at)
    expect(screen().slice(at).replace(/\r/g, '')).toMatch(/^\n> first question\necho: first question\n> the last question\necho: the last question\n/)
    type('/exit\r')
    expect(await exited).toBe(0)
  })

  it('a pasted block of lines is one turn, and each turn ends with one dim usage line', { timeout: 30_000 }, async () => {
    const { file, dir, sessions } = await writeApp(`
- id: app
  name: dsh-stdio-demo
  config: { persistenceRoot: ./sessions, model: script-model }
- id: script
  name: dsh-llm-scripted
  config: { models: [script-model], script: ./script.json }
`)
    await writeFile(join(dir, 'script.json'), JSON.stringify({ responses: [{ text: 'one answer', usage: { inputTokens: 1200, cacheReadTokens: 1080, outputTokens: 20 } }] }))
    const { screen, until, type, exited } = openTerminal([file])
    await until('> ')
    type('\x1b[200~line one\rline two\rline three\x1b[201~\r')
    const at = await until('one answer')
    await until('> ', at)
    expect(screen().slice(at)).toMatch(/^\r\n\x1b\[2m1,200 in · 90% cached · 20 out\x1b\[0m\r\n/)
    type('/exit\r')
    expect(await exited).toBe(0)
    const asked = (await sessionEvents(sessions)).filter((event) => event.type === 'user/message')
    expect(asked.map((event) => event.data.text)).toEqual(['line one\nline two\nline three'])
  })

  it('prints no usage line when stdout is not the terminal', { timeout: 30_000 }, async () => {
    const { file, dir } = await writeApp('- { id: app, name: dsh-stdio-demo, config: { persistenceRoot: ./sessions } }\n')
    const { until, type, exited } = openTerminal([file], {}, `> "${join(dir, 'out.txt')}"`)
    type('hello\r')
    await pause(2500)
    type('/exit\r')
    expect(await exited).toBe(0)
    const out = await readFile(join(dir, 'out.txt'), 'utf8')
    expect(out).toContain('echo: hello')
    expect(out).not.toMatch(/cached/)
    void until
  })

  it('/model lists the configured models and switches; the switch is logged and the next header says why', { timeout: 30_000 }, async () => {
    const { file, sessions } = await writeApp(`
- { id: app, name: dsh-stdio-demo, config: { persistenceRoot: ./sessions } }
- { id: more, name: dsh-llm-scripted, config: { models: [other-echo] } }
`)
    const { screen, until, type, exited } = openTerminal([file], { TERM: 'dumb' })
    let at = await until('> ')
    type('hello\r')
    at = await until('echo: hello', at)
    type('/model\r')
    const listed = await until('models (* = current):', at)
    at = await until('> ', listed)
    expect(screen().slice(listed, at - 2).replace(/\r/g, '').split('\n').filter(Boolean).sort()).toEqual(['  other-echo', '* scripted-echo'])
    type('/model nope\r')
    at = await until('error: unknown model "nope"; served models: ', at)
    type('/model other-echo\r')
    at = await until('model: scripted-echo → other-echo', at)
    type('again\r')
    at = await until('echo: again', at)
    type('/exit\r')
    expect(await exited).toBe(0)
    const events = await sessionEvents(sessions)
    expect(events.filter((event) => event.type === 'model/switch').map((event) => event.data)).toEqual([{ turn: 1, from: 'scripted-echo', to: 'other-echo' }])
    expect(events.filter((event) => event.type === 'request/header').map((event) => [event.data.reason, event.data.header.model]))
      .toEqual([['initial', 'scripted-echo'], ['model', 'other-echo']])
  })

  it('a log line that arrives at the prompt is printed above it, and the prompt is drawn again with what was typed', { timeout: 30_000 }, async () => {
    const { file } = await writeApp(`
- { id: app, name: dsh-stdio-demo, config: { persistenceRoot: ./sessions } }
- { id: slow, name: dsh-tools-static, config: { tools: [{ name: get_time, description: Time., delayMs: 2500 }] } }
`)
    const { screen, until, type, exited } = openTerminal([file], { TERM: 'dumb', DSH_STARTUP_TIMEOUT_MS: '300' })
    const at = await until('> ')
    type('half typed')
    await until('half typed', at)
    const logged = await until('after the app was ready', at)
    // the prompt line was erased before the log line, and drawn again after it with the half-typed text
    const before = screen().slice(at, logged)
    expect(before).toMatch(/half typed\r {12}\r\[info\] app-boot: entry "slow"/)
    await until('> half typed', logged)
    type('\x03')
    type('\x03')
    expect(await exited).toBe(0)
  })

  it('Ctrl-C while the app starts exits 0 quietly: no ready line, no error', { timeout: 30_000 }, async () => {
    const { file } = await writeApp(`
- { id: app, name: dsh-stdio-demo, config: { persistenceRoot: ./sessions, welcome: Hi there. } }
- { id: slow, name: dsh-tools-static, config: { tools: [{ name: get_time, description: Time., delayMs: 5000 }] } }
`)
    const { screen, until, type, exited } = openTerminal([file], { TERM: 'dumb' })
    const at = await until('connecting to slow')
    type('\x03')
    expect(await exited, `the terminal showed:\n${screen()}`).toBe(0)
    expect(screen().slice(at)).toMatch(/^ \(dsh-tools-static\) …\r\n(\^C)?\r?\n?$/)
  })

  it('an MCP server that cannot start, exits or comes back is one line between turns', { timeout: 40_000 }, async () => {
    const { command, args, env } = testServer({ tools: [{ name: 'crash', exit: true }, { name: 'ok' }] })
    const { file, dir } = await writeApp(`
- { id: app, name: dsh-stdio-demo, config: { persistenceRoot: ./sessions } }
- id: mcp
  name: ${JSON.stringify(TOOLS_MCP)}
  config:
    restartDelayMs: 1500
    servers:
      ghost: { command: ${JSON.stringify(process.execPath)}, args: [./no-such-server.js] }
      fragile: { command: ${JSON.stringify(command)}, args: ${JSON.stringify(args)}, env: ${JSON.stringify(env)} }
`)
    const { screen, until, type, exited } = openTerminal([file], { TERM: 'dumb', DSH_LOG_LEVEL: 'silent' })
    let at = await until(`(MCP server "ghost" failed to start: Error: Cannot find module '${join(dir, 'no-such-server.js')}'; retrying)`)
    at = await until('> ', at)
    type('/call mcp__fragile__crash {}\r')
    const answered = await until('tool mcp__fragile__crash returned', at)
    // the exit comes after the answer, as its own line, before the next prompt
    at = await until('(MCP server "fragile" exited; its tools are gone until it restarts)', answered)
    at = await until('> ', at)
    // its return arrives while the prompt is shown: a line above it, then the prompt again
    at = await until('(MCP server "fragile" is back with 2 tools)', at)
    await until('> ', at)
    expect(screen().split('(MCP server "ghost" failed').length).toBe(2)
    type('/exit\r')
    expect(await exited).toBe(0)
  })
})
