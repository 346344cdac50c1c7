import { readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { appYaml, run, writeApp } from './setup.ts'

async function logOf(sessions: string, id: string) {
  const text = await readFile(join(sessions, `${id}.jsonl`), 'utf8')
  return text.trimEnd().split('\n').map((line) => JSON.parse(line) as { type: string; data: any })
}

async function ids(sessions: string): Promise<string[]> {
  return (await readdir(sessions)).filter((name) => name.endsWith('.jsonl')).map((name) => name.slice(0, -'.jsonl'.length))
}

describe('resuming a session from the command line', () => {
  it('--sessions lists, --resume <id> and --continue go on with a stored session, whose next changed header says resume', async () => {
    const { file, dir, sessions } = await writeApp(appYaml({}))
    const empty = await run([file, '--sessions'], '')
    expect(empty).toMatchObject({ code: 0, stderr: '' })
    expect(empty.stdout).toMatch(/^no sessions in \S*sessions\n$/)
    expect(await run([file], 'first question\n')).toMatchObject({ code: 0, stdout: 'echo: first question\n' })
    const [older] = await ids(sessions)
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(await run([file], 'other\nand more\n')).toMatchObject({ code: 0 })
    const newer = (await ids(sessions)).find((id) => id !== older)!

    const listed = await run([file, '--sessions'], '')
    expect(listed).toMatchObject({ code: 0, stderr: '' })
    const lines = listed.stdout.trimEnd().split('\n')
    expect(lines).toHaveLength(2)
    expect(lines[0]).toMatch(new RegExp(`^${newer}  \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z  2 turns  "other"$`))
    expect(lines[1]).toMatch(new RegExp(`^${older}  \\S+  1 turn  "first question"$`))

    expect(await run([file, '--resume', older!], 'second question\n')).toMatchObject({ code: 0, stdout: 'echo: second question\n' })
    const resumed = await logOf(sessions, older!)
    expect(resumed.filter((event) => event.type === 'turn/start').map((event) => event.data.turn)).toEqual([1, 2])
    // an unchanged prefix is not logged again: the cached prefix goes on
    const reasons = (events: { type: string; data: any }[]) => events.filter((event) => event.type === 'request/header').map((event) => event.data.reason)
    expect(reasons(resumed)).toEqual(['initial'])

    // the resumed one is now the most recent; with a tool more, the first header after the resume says so
    const withTool = join(dir, 'with-tool.yml')
    await writeFile(withTool, appYaml({}, [{ name: 'get_time' }]))
    expect(await run([withTool, '--continue'], 'third\n')).toMatchObject({ code: 0, stdout: 'echo: third\n' })
    const continued = await logOf(sessions, older!)
    expect(continued.filter((event) => event.type === 'turn/start')).toHaveLength(3)
    expect(reasons(continued)).toEqual(['initial', 'resume'])
    expect(await ids(sessions)).toHaveLength(2)
  })

  it('an unknown id, --continue without sessions, and two choices at once are one clear line, exit 1', async () => {
    const { file } = await writeApp(appYaml({}))
    const unknown = await run([file, '--resume', 'nope'], 'hi\n')
    expect(unknown).toMatchObject({ code: 1, stdout: '' })
    expect(unknown.stderr).toBe('--resume: no stored session "nope"; --sessions lists the 0 there are\n')
    const none = await run([file, '--continue'], 'hi\n')
    expect(none).toMatchObject({ code: 1, stdout: '' })
    expect(none.stderr).toBe('--continue: there is no stored session yet; run without it to start one\n')
    const both = await run([file, '--continue', '--resume=x'], '')
    expect(both).toMatchObject({ code: 1, stdout: '' })
    expect(both.stderr).toBe('--continue and --resume cannot be combined; give one of --sessions, --continue, --resume <id> (dsh-stdio-demo --help shows the usage)\n')
    for (const args of [['--continue', '--resume', 'x'], ['--resume', 'x', '--continue'], ['--sessions', '--continue']]) {
      const refused = await run([file, ...args], 'hi\n')
      expect(refused).toMatchObject({ code: 1, stdout: '' })
      expect(refused.stderr.split('\n')).toHaveLength(2)
    }
    const bare = await run([file, '--resume'], '')
    expect(bare.stderr).toBe('--resume needs a session id (--sessions lists them) (dsh-stdio-demo --help shows the usage)\n')
  })
})
