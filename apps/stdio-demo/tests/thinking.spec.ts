import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { describeOnTerminal, openTerminal, scriptedApp } from './terminal.ts'

/** An app whose model takes `delayMs` before its first chunk, then answers at once, then calls a tool. */
function slowApp(delayMs: number) {
  return scriptedApp('Welcome.', [
    { text: 'the slow answer', delayMs },
    { text: 'the quick answer' },
    { toolCalls: [{ name: 'get_time' }] },
    { text: 'after the tool', delayMs },
  ])
}

describeOnTerminal('the REPL while the model has not answered', () => {
  it('shows "thinking…" on the terminal until the first chunk, then clears it; again after a tool result', { timeout: 20_000 }, async () => {
    const { file, dir } = await slowApp(1200)
    const terminal = openTerminal([file], { XDG_STATE_HOME: dir })
    let at = await terminal.until('> ')
    terminal.type('hello\r')
    const shown = await terminal.until('thinking…', at)
    // still thinking, not answered: the indicator is redrawn in place, nothing else yet
    expect(terminal.screen().slice(shown)).not.toContain('the slow answer')
    at = await terminal.until('the slow answer', shown)
    // the answer starts on a cleared line: spaces over the indicator, then a carriage return
    const before = terminal.screen().slice(0, at - 'the slow answer'.length)
    expect(before).toMatch(/\r {11}\r$/)
    at = await terminal.until('> ', at)
    terminal.type('again\r')
    at = await terminal.until('the quick answer', at)
    // after a tool result the model is waited for again
    at = await terminal.until('> ', at)
    terminal.type('use the tool\r')
    at = await terminal.until('← noon', at)
    at = await terminal.until('thinking…', at)
    await terminal.until('after the tool', at)
    terminal.type('/exit\r')
    expect(await terminal.exited).toBe(0)
  })

  it('never puts it on stdout redirected to a file: it goes to the terminal on stderr', { timeout: 20_000 }, async () => {
    const { file, dir } = await slowApp(800)
    const out = join(dir, 'out.txt')
    const terminal = openTerminal([file], { XDG_STATE_HOME: dir }, `> "${out}"`)
    const inFile = async (text: string) => {
      for (let i = 0; i < 100 && !(await readFile(out, 'utf8').catch(() => '')).includes(text); i++) await new Promise((resolve) => setTimeout(resolve, 50))
    }
    // stdin is the terminal: the REPL runs, its prompt and answers go to the file
    await inFile('> ')
    terminal.type('hello\r')
    await terminal.until('thinking…')
    await inFile('the slow answer')
    terminal.type('/exit\r')
    expect(await terminal.exited).toBe(0)
    const written = await readFile(out, 'utf8')
    expect(written).toContain('the slow answer')
    expect(written).not.toContain('thinking')
  })
})
