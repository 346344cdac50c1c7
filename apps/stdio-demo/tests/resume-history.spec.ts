import { mkdir, readdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { appYaml, run, writeApp } from './setup.ts'
import { describeOnTerminal, openTerminal } from './terminal.ts'

const plain = (text: string) => text.replace(/\r/g, '')

/** An app with one tool, and a stored session of `turns` piped turns (the third one calls the tool). */
async function storedSession(turns: number) {
  const app = await writeApp(appYaml({}, [{ name: 'get_time', result: 'noon' }]))
  const lines = Array.from({ length: turns }, (_, index) => index === 2 ? '/call get_time {}' : `question ${index + 1}`)
  expect(await run([app.file], `${lines.join('\n')}\n`)).toMatchObject({ code: 0 })
  const id = (await readdir(app.sessions)).find((name) => name.endsWith('.jsonl'))!.slice(0, -'.jsonl'.length)
  return { ...app, id }
}

describeOnTerminal('a resumed REPL shows the conversation', () => {
  it('prints every turn (prompts, tool calls, answers) when it fits, and on leaving the session id and the command that resumes it', { timeout: 30_000 }, async () => {
    const { file, id } = await storedSession(3)
    const { screen, until, type, exited } = openTerminal([file, '--continue'], { TERM: 'dumb' }, '', undefined, { rows: 40, columns: 100 })
    const at = await until(`resumed session ${id} · 3 turns`)
    const prompt = await until('> ', await until('model: ', at))
    expect(plain(screen().slice(at, prompt))).toBe([
      '',
      '> question 1', 'echo: question 1',
      '> question 2', 'echo: question 2',
      '> /call get_time {}', '→ get_time {}', '← noon', 'tool get_time returned: noon',
      'model: scripted-echo · /help for commands',
      '> ',
    ].join('\n'))
    type('one more\r')
    // the answer, its usage line, then the next prompt: /exit goes to that prompt
    await until('> ', await until('cached', await until('echo: one more', prompt)))
    type('/exit\r')
    expect(await exited).toBe(0)
    expect(plain(screen())).toMatch(new RegExp(`\\nsession ${id} · resume it with: dsh-stdio-demo ${file.replace(/[.]/g, '\\.')} --resume ${id}\\n$`))
  })

  it('pages a long conversation to the terminal height, saying how many lines are left out and that --history all shows them', { timeout: 40_000 }, async () => {
    const { file, id } = await storedSession(12)
    const { screen, until, type, exited } = openTerminal([file, '--resume', id], { TERM: 'dumb' }, '', undefined, { rows: 10, columns: 80 })
    const at = await until(`resumed session ${id} · 12 turns`)
    const prompt = await until('> ', await until('model: ', at))
    const shown = plain(screen().slice(at, prompt)).split('\n').slice(1, -2)
    // 10 rows: the resumed line, the model line and the prompt leave 7, one of them the note
    expect(shown).toEqual([
      '(… 20 earlier lines not shown; add --history all to see them)',
      '> question 10', 'echo: question 10', '> question 11', 'echo: question 11', '> question 12', 'echo: question 12',
    ])
    type('/exit\r')
    expect(await exited).toBe(0)

    const all = openTerminal([file, '--resume', id, '--history', 'all'], { TERM: 'dumb' }, '', undefined, { rows: 10, columns: 80 })
    const from = await all.until(`resumed session ${id} · 12 turns`)
    const end = await all.until('model: ', from)
    const lines = plain(all.screen().slice(from, end)).split('\n').slice(1, -1)
    expect(lines).toHaveLength(26)
    expect(lines.slice(0, 2)).toEqual(['> question 1', 'echo: question 1'])
    expect(lines.join('\n')).not.toContain('not shown')
    all.type('/exit\r')
    expect(await all.exited).toBe(0)
  })

  it('--history <rows> sets the page; a corrupt session under --continue is the one-line error, with no history printed', { timeout: 30_000 }, async () => {
    const { file, id } = await storedSession(3)
    const paged = openTerminal([file, '--continue', '--history=3'], { TERM: 'dumb' })
    const at = await paged.until(`resumed session ${id} · 3 turns`)
    const end = await paged.until('model: ', at)
    expect(plain(paged.screen().slice(at, end)).split('\n').slice(1, -1))
      .toEqual(['(… 6 earlier lines not shown; add --history all to see them)', '← noon', 'tool get_time returned: noon'])
    paged.type('/exit\r')
    expect(await paged.exited).toBe(0)

    const broken = await writeApp(appYaml({}))
    await mkdir(broken.sessions)
    await writeFile(join(broken.sessions, 'only.jsonl'), 'this is not json\n{"neither": is this}\n')
    const refused = openTerminal([broken.file, '--continue'], { TERM: 'dumb' })
    expect(await refused.exited).toBe(1)
    const shown = plain(refused.screen())
    // after the startup lines, the one line it gets piped too (tests/session-files.spec.ts), and nothing else
    expect(shown).toMatch(/\nready \([\d.]+ s\)\n\S*app\.yml: entry "app" \(dsh-stdio-demo\): cannot open a session \(persistenceRoot "\S+sessions"\): \S*only\.jsonl, line 1: [^\n]+\n$/)
    expect(shown).not.toContain('resumed session')
  })
})

describe('--history on the command line', () => {
  it('a bad value, or --history without a resumed session, is one line naming it and what is valid, exit 1; piped runs print no history', async () => {
    const { file, id } = await storedSession(1)
    for (const [args, line] of [
      [['--continue', '--history', 'lots'], '--history: expected "all" or a number of terminal rows (1 or more), got "lots"'],
      [['--continue', '--history=0'], '--history: expected "all" or a number of terminal rows (1 or more), got "0"'],
      [['--continue', '--history'], '--history: expected "all" or a number of terminal rows (1 or more), got nothing'],
      [['--history', 'all'], '--history prints a resumed conversation: give it with --continue or --resume <id>'],
    ] as const) {
      const refused = await run([file, ...args], 'hi\n')
      expect(refused).toMatchObject({ code: 1, stdout: '', stderr: `${line} (dsh-stdio-demo --help shows the usage)\n` })
    }
    expect(await run([file, '--resume', id, '--history', 'all'], 'again\n')).toMatchObject({ code: 0, stdout: 'echo: again\n', stderr: '' })
  })
})
