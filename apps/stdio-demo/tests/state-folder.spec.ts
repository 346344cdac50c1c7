import { mkdir, readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { defaultSessionRoot } from 'dsh-session'
import { run, tempDir } from './setup.ts'

/** A working folder, a home and a state folder, all fresh; `env` points the bin at them. */
async function places(xdg: 'absolute' | 'unset' | 'relative' = 'absolute') {
  const [cwd, home, state] = await Promise.all([tempDir('dsh-cwd-'), tempDir('dsh-home-'), tempDir('dsh-state-')])
  const XDG_STATE_HOME = { absolute: state, unset: '', relative: 'relative-state' }[xdg]
  return { cwd, home, state, env: { HOME: home, XDG_STATE_HOME } }
}

const logs = async (folder: string) => (await readdir(folder)).filter((name) => name.endsWith('.jsonl'))

async function tree(folder: string): Promise<string[]> {
  const found: string[] = []
  for (const entry of await readdir(folder, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) found.push(join(entry.parentPath, entry.name).slice(folder.length + 1))
  }
  return found.sort()
}

describe('where the shipped app keeps its sessions', () => {
  it('under $XDG_STATE_HOME/dsh/sessions/<working folder key>, writing nothing into the working folder', async () => {
    const { cwd, home, state, env } = await places()
    expect(await run([], 'hi\n', { cwd, env })).toMatchObject({ code: 0, stdout: 'echo: hi\n' })
    expect(await readdir(cwd)).toEqual([])
    expect(await readdir(home)).toEqual([])
    const files = (await tree(state)).sort()
    // the session log, and beside it the offline model's emulated prompt cache
    expect(files).toHaveLength(2)
    expect(files[0]).toMatch(/^dsh\/sessions\/[A-Za-z0-9_-]+-[0-9a-f]{10}\/[0-9a-f-]{36}\.jsonl$/)
    expect(files[1]).toBe(`${files[0]!.slice(0, files[0]!.lastIndexOf('/'))}/scripted-echo.cache`)
    expect(join(state, files[0]!)).toContain(defaultSessionRoot(cwd, env))
    // the key reads like the working folder
    expect(files[0]).toContain(cwd.split('/').at(-1)!.replace(/[^A-Za-z0-9_-]+/g, '-'))
  })

  it.each(['unset', 'relative'] as const)('under $HOME/.local/state when XDG_STATE_HOME is %s', async (xdg) => {
    const { cwd, home, env } = await places(xdg)
    expect(await run([], 'hi\n', { cwd, env })).toMatchObject({ code: 0, stdout: 'echo: hi\n' })
    // a relative XDG_STATE_HOME is not a folder under the working directory either
    expect(await readdir(cwd)).toEqual([])
    expect(await logs(defaultSessionRoot(cwd, { HOME: home }))).toHaveLength(1)
    expect((await tree(home)).every((file) => file.startsWith('.local/state/dsh/sessions/'))).toBe(true)
  })

  it('one folder per working folder: --continue and --sessions see only this folder\'s sessions', async () => {
    const { cwd, state, env } = await places()
    const other = join(cwd, 'sub')
    await mkdir(other)
    expect(await run([], 'here\n', { cwd, env })).toMatchObject({ code: 0 })
    expect(await run([], 'there\n', { cwd: other, env })).toMatchObject({ code: 0 })
    const listed = await run(['--sessions'], '', { cwd, env })
    expect(listed.stdout).toMatch(/^\S+  \S+  1 turn  "here"\n$/)
    const none = await run(['--sessions'], '', { cwd: await tempDir('dsh-cwd-'), env })
    expect(none.stdout).toMatch(new RegExp(`^no sessions in ${state}/dsh/sessions/\\S+-[0-9a-f]{10}\\n$`))
    expect(await run(['--continue'], 'again\n', { cwd: other, env })).toMatchObject({ code: 0, stdout: 'echo: again\n' })
    expect((await run(['--sessions'], '', { cwd: other, env })).stdout).toMatch(/^\S+  \S+  2 turns  "there"\n$/)
  })

  it('a run without a turn leaves no file, and --sessions lists no ghost', async () => {
    const { cwd, state, env } = await places()
    const tools = await run([], '/tools\n/prompt\n/help\n', { cwd, env })
    expect(tools.code).toBe(0)
    expect(tools.stdout).toContain('tools in request order')
    expect(await tree(state)).toEqual([])
    expect(await readdir(cwd)).toEqual([])
    expect((await run(['--sessions'], '', { cwd, env })).stdout).toMatch(/^no sessions in /)
    expect(await run(['--continue'], 'hi\n', { cwd, env })).toMatchObject({ code: 1, stderr: '--continue: there is no stored session yet; run without it to start one\n' })
  })
})
