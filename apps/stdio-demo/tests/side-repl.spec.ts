import { readFile, readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { describeOnTerminal, openTerminal, scriptedApp } from './terminal.ts'

describeOnTerminal('/side in the REPL', () => {
  it('shows the side session\'s tool lines, its answer and where it came from; Ctrl-C cancels one, and the REPL goes on', { timeout: 60_000 }, async () => {
    const { file, dir } = await scriptedApp('Side test.', [
      { text: 'first answer' },
      { toolCalls: [{ name: 'get_time', arguments: {} }] },
      { text: 'it is noon' },
      { text: 'too late', delayMs: 20_000 },
      { text: 'last answer' },
    ])
    const sessions = join(dir, 'sessions')
    const { screen, until, type, exited } = openTerminal([file], { TERM: 'dumb' })
    await until('> ')
    type('hello\r')
    let at = await until('first answer')
    type('/side what time is it?\r')
    at = await until('(side answer from session ', at)
    expect(screen().replace(/\r/g, '')).toContain('→ get_time {}\n← noon\nit is noon\n(side answer from session ')
    type('/side and now?\r')
    await new Promise((resolve) => setTimeout(resolve, 500))
    type('\x03')
    at = await until('(side question cancelled; its session ', at)
    type('and on\r')
    await until('last answer', at)
    type('/exit\r')
    expect(await exited).toBe(0)

    const ids = (await readdir(sessions)).filter((name) => name.endsWith('.jsonl')).map((name) => name.slice(0, -'.jsonl'.length)).sort()
    const [main] = ids
    expect(ids).toEqual([main, `${main}~1`, `${main}~2`])
    const log = async (id: string) => (await readFile(join(sessions, `${id}.jsonl`), 'utf8')).trimEnd().split('\n').map((line) => JSON.parse(line))
    expect((await log(`${main}~2`)).at(-1)).toMatchObject({ type: 'turn/end', data: { reason: 'cancelled' } })
    const asked = (await log(main!)).filter((event: { type: string }) => event.type === 'user/message')
    expect(asked.map((event: { data: { text: string } }) => event.data.text)).toEqual(['hello', 'and on'])
  })
})
