import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { appYaml, tempDir, writeApp } from './setup.ts'
import { describeOnTerminal, openTerminal, type Terminal } from './terminal.ts'

const UP = '\x1b[A'

/** Types `line` at the prompt shown after `at`, waits for its answer and the next prompt; returns where that prompt ends. */
async function ask(terminal: Terminal, line: string, at: number): Promise<number> {
  terminal.type(`${line}\r`)
  return terminal.until('> ', await terminal.until(`echo: ${line}`, at))
}

describeOnTerminal('the REPL\'s input history', () => {
  it('keeps typed lines across runs in the state folder: up-arrow recalls the previous run\'s line', { timeout: 30_000 }, async () => {
    const { file } = await writeApp(appYaml({}))
    const [state, cwd] = await Promise.all([tempDir('dsh-state-'), tempDir('dsh-cwd-')])
    const env = { XDG_STATE_HOME: state }
    const first = openTerminal([file], env, '', cwd)
    await ask(first, 'remember this line', await first.until('> '))
    first.type('\x04')
    expect(await first.exited).toBe(0)
    const path = join(state, 'dsh', 'stdio-history')
    expect(await readFile(path, 'utf8')).toBe('remember this line\n')
    // typed lines may hold secrets: only the user reads them
    expect((await stat(path)).mode & 0o777).toBe(0o600)

    const second = openTerminal([file], env, '', cwd)
    const at = await second.until('> ')
    second.type(UP)
    second.type('\r')
    await second.until('> ', await second.until('echo: remember this line', at))
    second.type('/exit\r')
    expect(await second.exited).toBe(0)
    // a recalled line repeated right away is kept once
    expect(await readFile(path, 'utf8')).toBe('remember this line\n/exit\n')
    // nothing lands in the working folder
    expect(await readFile(join(cwd, 'stdio-history'), 'utf8').catch(() => 'none')).toBe('none')
  })

  it('keeps the last 500 lines', { timeout: 20_000 }, async () => {
    const { file } = await writeApp(appYaml({}))
    const state = await tempDir('dsh-state-')
    await mkdir(join(state, 'dsh'))
    const path = join(state, 'dsh', 'stdio-history')
    await writeFile(path, Array.from({ length: 600 }, (_, i) => `old ${i + 1}\n`).join(''))
    const terminal = openTerminal([file], { XDG_STATE_HOME: state })
    // 500 are read back (old 101 to old 600); adding one drops old 101
    await ask(terminal, 'new line', await terminal.until('> '))
    terminal.type('\x04')
    expect(await terminal.exited).toBe(0)
    const lines = (await readFile(path, 'utf8')).trimEnd().split('\n')
    expect(lines).toHaveLength(500)
    expect(lines[0]).toBe('old 102')
    expect(lines.at(-1)).toBe('new line')
  })

  it('works without history when the history file cannot be used, saying so once', { timeout: 20_000 }, async () => {
    const { file } = await writeApp(appYaml({}))
    const state = await tempDir('dsh-state-')
    // a folder where the file should be: nothing to read, nothing can be written
    await mkdir(join(state, 'dsh', 'stdio-history'), { recursive: true })
    const terminal = openTerminal([file], { XDG_STATE_HOME: state })
    await ask(terminal, 'two', await ask(terminal, 'one', await terminal.until('> ')))
    terminal.type('\x04')
    expect(await terminal.exited).toBe(0)
    const warnings = terminal.screen().split('warning: cannot save the input history to ').length - 1
    expect(warnings).toBe(1)
    expect(terminal.screen()).toContain(`${join(state, 'dsh', 'stdio-history')}: EISDIR`)
    expect(await readdir(join(state, 'dsh'))).toEqual(['stdio-history'])
  })
})
