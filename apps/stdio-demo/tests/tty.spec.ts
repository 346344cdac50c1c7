import { describe, expect, it } from 'vitest'
import { writeApp } from './setup.ts'
import { describeOnTerminal, openTerminal, scriptedApp } from './terminal.ts'

describeOnTerminal('the REPL on a terminal', () => {
  it('streams answers and tool calls, cancels a turn on Ctrl-C and exits 0 on /exit', { timeout: 20_000 }, async () => {
    // one response per model call; the fourth would come after 60 s: only Ctrl-C can end that turn in time
    const { file } = await scriptedApp('Welcome to the test.', [
      { text: 'first answer' },
      { toolCalls: [{ name: 'get_time' }] },
      { text: 'after the tool' },
      { text: 'too late', delayMs: 60_000 },
      { text: 'after the cancel' },
    ])
    const { until, type, exited } = openTerminal([file], { TERM: 'dumb' })
    let at = await until('Welcome to the test.', 0)
    // types a line once the prompt is shown, then waits for each expected text in turn
    const ask = async (line: string, ...texts: string[]) => {
      at = await until('> ', at)
      type(`${line}\r`)
      for (const text of texts) at = await until(text, at)
    }
    await ask('hello', 'first answer')
    await ask('use a tool', '→ get_time {}', '← noon', 'after the tool')
    await ask('/tools', '2 tools in request order:', '1. agent — Runs a child agent', '2. get_time — Time.')
    await ask('wait', 'wait')
    await new Promise((resolve) => setTimeout(resolve, 300))
    type('\x03')
    at = await until('(cancelled)', at)
    await ask('again', 'after the cancel')
    await ask('/exit')
    expect(await exited).toBe(0)
  })

  it('says what it is connecting to while the app starts, then that it is ready, before the first prompt', { timeout: 20_000 }, async () => {
    const { file } = await writeApp(`
- id: app
  name: dsh-stdio-demo
  config: { persistenceRoot: ./sessions, welcome: Welcome to the test. }
- id: slow-tools
  name: dsh-tools-static
  config: { tools: [{ name: get_time, description: Time., delayMs: 1500 }] }
`)
    const { screen, until, type, exited } = openTerminal([file], { TERM: 'dumb' })
    await until('> ')
    const lines = screen().replace(/\r/g, '').split('\n')
    expect(lines.slice(0, 4)).toEqual([
      'Welcome to the test.',
      'connecting to slow-tools (dsh-tools-static) …',
      expect.stringMatching(/^ready \(\d+\.\d s\)$/),
      'model: scripted-echo · /help for commands',
    ])
    type('/tools\r')
    await until('2. get_time')
    type('/exit\r')
    expect(await exited).toBe(0)
  })

  it('clears a half-typed line on Ctrl-C, and leaves on Ctrl-C on an empty line', { timeout: 20_000 }, async () => {
    const { file } = await writeApp('- { id: app, name: dsh-stdio-demo, config: { persistenceRoot: ./sessions, welcome: Hi there. } }\n')
    const { screen, until, type, exited } = openTerminal([file], { TERM: 'dumb' })
    await until('> ')
    type('half typed')
    await until('half typed')
    type('\x03')
    await new Promise((resolve) => setTimeout(resolve, 200))
    type('hello\r')
    const answer = await until('echo: ') - 'echo: '.length
    await until('> ', answer)
    expect(screen().slice(answer)).toMatch(/^echo: hello\r?\n/)
    expect(screen()).not.toContain('echo: half typed')
    type('\x03')
    expect(await exited).toBe(0)
  })
})
