import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { defaultSessionRoot } from 'dsh-session'
import { describe, expect, it } from 'vitest'
import { run, sessionEvents, tempDir } from './setup.ts'
import { describeOnTerminal, openTerminal } from './terminal.ts'

/** A fresh user: an empty state folder and an empty working folder, the shipped cordis.yml. */
async function freshUser() {
  const state = await tempDir('dsh-state-')
  const cwd = await tempDir('dsh-work-')
  const sessions = defaultSessionRoot(cwd, { XDG_STATE_HOME: state })
  return { cwd, sessions, env: { XDG_STATE_HOME: state } }
}

const shareOf = (usage: { inputTokens: number; cacheReadTokens: number }) => usage.cacheReadTokens / usage.inputTokens

describe('the offline model\'s emulated prompt cache, piped', () => {
  it('`hi`, then `again` with --continue in a new process: the second request is mostly cached, and the log marks the figures emulated', { timeout: 60_000 }, async () => {
    const { cwd, sessions, env } = await freshUser()
    expect(await run([], 'hi\n', { cwd, env })).toMatchObject({ code: 0, stdout: 'echo: hi\n' })
    const second = await run(['--continue'], 'again\n', { cwd, env })
    expect(second).toMatchObject({ code: 0, stdout: 'echo: again\n' })
    // stderr is not a terminal here: no usage line mixed into what a program reads
    expect(second.stderr).not.toContain('cached')

    const usages = (await sessionEvents(sessions)).filter((event) => event.type === 'assistant/message').map((event) => event.data.usage)
    expect(usages).toHaveLength(2)
    expect(usages.every((usage) => usage.emulated === true)).toBe(true)
    expect(usages[0].cacheReadTokens).toBe(0)
    expect(shareOf(usages[1])).toBeGreaterThan(0.8)
  })
})

describeOnTerminal('the offline model\'s emulated prompt cache, on a terminal', () => {
  it('`echo again | dsh-stdio-demo --continue` shows a usage line above 80% cached, labelled emulated', { timeout: 60_000 }, async () => {
    const { cwd, env } = await freshUser()
    await writeFile(join(cwd, 'hi.txt'), 'hi\n')
    await writeFile(join(cwd, 'again.txt'), 'again\n')
    const first = openTerminal([], env, '< hi.txt', cwd)
    await first.until('echo: hi')
    await first.until('% cached (emulated)')
    expect(await first.exited).toBe(0)
    expect(first.screen()).toMatch(/ in · 0% cached \(emulated\) · /)

    const second = openTerminal(['--continue'], env, '< again.txt', cwd)
    await second.until('echo: again')
    await second.until('% cached (emulated)')
    expect(await second.exited).toBe(0)
    const share = Number(/ in · (\d+)% cached \(emulated\) · /.exec(second.screen())?.[1])
    expect(share).toBeGreaterThan(80)
  })
})
