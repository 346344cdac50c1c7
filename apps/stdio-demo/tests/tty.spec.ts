import { spawn, spawnSync } from 'node:child_process'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { BIN, writeApp } from './setup.ts'

// util-linux `script` gives the bin a real pseudo-terminal; without it this suite is skipped
const hasScript = spawnSync('script', ['--version']).status === 0

/** Starts the bin on `file` in a pseudo-terminal; `until(text)` waits for `text` on the screen (killed when the test ends). */
function onTerminal(file: string) {
  const child = spawn('script', ['-qfec', `"${process.execPath}" "${BIN}" "${file}"`, '/dev/null'], {
    env: { ...process.env, DSH_LOG_LEVEL: '', DSH_STARTUP_TIMEOUT_MS: '', TERM: 'dumb' },
  })
  const terminal = { child, screen: '', exited: new Promise<number | null>((resolve) => child.on('close', resolve)), until }
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => { terminal.screen += chunk })
  onTestFinished(() => { child.kill() })
  async function until(text: string, timeoutMs = 8000) {
    const deadline = Date.now() + timeoutMs
    while (!terminal.screen.includes(text)) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`no ${JSON.stringify(text)} on the terminal; it shows:\n${terminal.screen}`)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }
  return terminal
}

describe.skipIf(!hasScript)('the REPL on a terminal', () => {
  it('streams answers and tool calls, cancels a turn on Ctrl-C and exits 0 on /exit', { timeout: 20_000 }, async () => {
    const { file, dir } = await writeApp(`
- id: app
  name: dsh-stdio-demo
  config: { persistenceRoot: ./sessions, welcome: Welcome to the test., model: script-model }
- id: tools
  name: dsh-tools-static
  config: { tools: [{ name: get_time, description: Time., result: noon }] }
- id: script
  name: dsh-llm-scripted
  config: { models: [script-model], script: ./script.json }
`)
    // one response per model call; the fourth would come after 60 s: only Ctrl-C can end that turn in time
    await writeFile(join(dir, 'script.json'), JSON.stringify({
      responses: [
        { text: 'first answer' },
        { toolCalls: [{ name: 'get_time' }] },
        { text: 'after the tool' },
        { text: 'too late', delayMs: 60_000 },
        { text: 'after the cancel' },
      ],
    }))
    const child = spawn('script', ['-qfec', `"${process.execPath}" "${BIN}" "${file}"`, '/dev/null'], {
      env: { ...process.env, DSH_LOG_LEVEL: '', TERM: 'dumb' },
    })
    let screen = ''
    const waiters: (() => void)[] = []
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      screen += chunk
      for (const wake of waiters.splice(0)) wake()
    })
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve))
    const until = async (text: string, from: number) => {
      const deadline = Date.now() + 8000
      while (!screen.includes(text, from)) {
        if (Date.now() > deadline) throw new Error(`no ${JSON.stringify(text)} on the terminal; it shows:\n${screen}`)
        await new Promise<void>((resolve) => { waiters.push(resolve); setTimeout(resolve, 100) })
      }
      return screen.indexOf(text, from) + text.length
    }
    const type = (keys: string) => child.stdin.write(keys)

    onTestFinished(() => { child.kill() })
    let at = await until('Welcome to the test.', 0)
    // types a line once the prompt is shown, then waits for each expected text in turn
    const ask = async (line: string, ...texts: string[]) => {
      at = await until('> ', at)
      type(`${line}\r`)
      for (const text of texts) at = await until(text, at)
    }
    await ask('hello', 'first answer')
    await ask('use a tool', '→ get_time {}', '← noon', 'after the tool')
    await ask('/tools', '1 tool in request order:', '1. get_time — Time.')
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
    const terminal = onTerminal(file)
    await terminal.until('> ', 15_000)
    const lines = terminal.screen.replace(/\r/g, '').split('\n')
    expect(lines.slice(0, 4)).toEqual([
      'Welcome to the test.',
      'connecting to slow-tools (dsh-tools-static) …',
      expect.stringMatching(/^ready \(\d+\.\d s\)$/),
      'model: scripted-echo · /help for commands',
    ])
    terminal.child.stdin.write('/tools\r')
    await terminal.until('1. get_time')
    terminal.child.stdin.write('/exit\r')
    expect(await terminal.exited).toBe(0)
  })

  it('clears a half-typed line on Ctrl-C, and leaves on Ctrl-C on an empty line', { timeout: 20_000 }, async () => {
    const { file } = await writeApp('- { id: app, name: dsh-stdio-demo, config: { persistenceRoot: ./sessions, welcome: Hi there. } }\n')
    const terminal = onTerminal(file)
    const { child, until, exited } = terminal
    await until('> ')
    child.stdin.write('half typed')
    await until('half typed')
    child.stdin.write('\x03')
    await new Promise((resolve) => setTimeout(resolve, 200))
    child.stdin.write('hello\r')
    await until('echo: ')
    const answer = terminal.screen.indexOf('echo: ')
    const deadline = Date.now() + 8000
    while (!terminal.screen.includes('> ', answer) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50))
    expect(terminal.screen.slice(answer)).toMatch(/^echo: hello\r?\n/)
    expect(terminal.screen).not.toContain('echo: half typed')
    child.stdin.write('\x03')
    expect(await exited).toBe(0)
  })
})
