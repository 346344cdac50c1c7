import { readdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { defaultSessionRoot } from 'dsh-session'
import { describe, expect, it } from 'vitest'
import { App, appYaml, headers, run, sessionEvents, tempDir, writeApp } from './setup.ts'

async function until(probe: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error('timed out')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

describe('piped stdin', () => {
  it('answers each line on stdout and nothing else', async () => {
    const { file } = await writeApp(appYaml({ persona: 'Be brief.' }, [{ name: 'read_file', result: 'file body' }]))
    const result = await run([file], 'hello\n\n/call read_file {}\n')
    expect(result.stdout).toBe('echo: hello\ntool read_file returned: file body\n')
    expect(result.stderr).toBe('→ read_file {}\n← file body\n')
    expect(result.code).toBe(0)
  })

  it('logs the session and flushes it before exiting', async () => {
    const { file, sessions } = await writeApp(appYaml({}))
    expect((await run([file], 'one\ntwo\n')).stdout).toBe('echo: one\necho: two\n')
    const events = await sessionEvents(sessions)
    expect(events.filter((event) => event.type === 'turn/end').map((event) => event.data.reason)).toEqual(['done', 'done'])
    expect(events.at(-1)!.type).toBe('turn/end')
  })

  it('prints /tools in request order and /prompt as the request carries it', async () => {
    const { file, sessions } = await writeApp(appYaml({ persona: 'Be brief.' }, [{ name: 'zeta' }, { name: 'alpha' }]))
    const app = new App([file])
    // the harness's agent tool is in every prefix by default (agentTool: false leaves it out)
    await app.waitForTools(3)
    app.send('/tools')
    expect([await app.nextLine(), (await app.nextLine()).slice(0, 29), await app.nextLine(), await app.nextLine()])
      .toEqual(['3 tools in request order:', '1. agent — Runs a child agent', '2. alpha — The alpha tool.', '3. zeta — The zeta tool.'])
    app.send('/prompt')
    app.send('hello')
    const { code, stdout } = await app.finish()
    expect(code).toBe(0)
    const [header] = headers(await sessionEvents(sessions))
    expect(header.header.system).toContain('Be brief.')
    expect(stdout.endsWith(`${header.header.system}\necho: hello\n`)).toBe(true)
  })

  it('compacts on /compact, logs it, and reports a failure on stderr', async () => {
    const { file, sessions } = await writeApp(appYaml({}))
    const result = await run([file], '/compact\none\n/compact\ntwo\n')
    expect(result.stderr).toBe('error: compaction failed: nothing to compact: no request was made yet\n')
    const [, through] = /^echo: one\ncompacted: the conversation through event (\d+) is now a summary of \d+ characters\necho: two\n$/.exec(result.stdout) ?? []
    const events = await sessionEvents(sessions)
    const compaction = events.find((event) => event.type === 'context/compaction')
    expect(compaction?.data).toMatchObject({ turn: 1, step: 0, reason: 'manual', throughSeq: Number(through) })
    expect(compaction!.seq).toBe(Number(through) + 1)
  })

  it('stops reading at /exit', async () => {
    const { file } = await writeApp(appYaml({}))
    const result = await run([file], 'one\n/exit\ntwo\n')
    expect(result).toMatchObject({ code: 0, stdout: 'echo: one\n' })
  })

  it('fails a turn on an unregistered toolOrder name, logs it balanced and serves the next line', async () => {
    // web_search registers 1.5 s after the app is ready: the first turn runs without it, the later one with it
    const { file, sessions } = await writeApp(appYaml(
      { toolOrder: ['web_search', '<unlisted-tools>'] },
      [{ name: 'read_file' }, { name: 'web_search', afterReadyMs: 1500 }],
    ))
    const app = new App([file])
    app.send('hello')
    await app.until(() => app.stderr.includes('\n'), 'reporting the failed turn')
    const failure = 'error: toolOrder lists unregistered tool "web_search"; known tools: agent, read_file\n'
    expect(app.stderr).toBe(failure)
    app.send('/tools')
    await app.until(() => app.stderr.length > failure.length && app.stderr.endsWith('\n'), 'reporting the failed /tools')
    expect(app.stderr).toBe(failure.repeat(2))
    await new Promise((resolve) => setTimeout(resolve, 1600))
    app.send('again')
    const { code, stdout, stderr } = await app.finish()
    expect(code).toBe(1)
    expect(stdout).toBe('echo: again\n')
    expect(stderr).toBe(`${failure.repeat(2)}1 of 2 turns failed\n`)

    const events = await sessionEvents(sessions)
    const firstTurn = events.slice(0, events.findIndex((event) => event.type === 'turn/end') + 1)
    expect(firstTurn.map((event) => event.type)).toEqual(['turn/start', 'user/message', 'turn/end'])
    expect(firstTurn[2].data).toEqual({
      turn: 1, reason: 'error', error: { message: 'toolOrder lists unregistered tool "web_search"; known tools: agent, read_file' },
    })
    expect(headers(events).map((data) => data.header.tools.map((tool: any) => tool.name))).toEqual([['web_search', 'agent', 'read_file']])
  })

  it('logs a refused late registration as one stderr line, without a stack, and keeps serving', async () => {
    const { file } = await writeApp([
      `- { id: app, name: dsh-stdio-demo, config: { persistenceRoot: ./sessions } }`,
      `- { id: first, name: dsh-tools-static, config: { tools: [{ name: twin, description: One. }] } }`,
      `- { id: late, name: dsh-tools-static, config: { tools: [{ name: twin, description: Two., afterReadyMs: 20 }] } }`,
    ].join('\n') + '\n')
    const app = new App([file])
    await app.until(() => app.stderr.includes('\n'), 'logging the refused registration')
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(app.stderr).toBe('[error] tools-static: ToolsError: tool "twin" is already registered\n')
    app.send('hello')
    const { code, stdout } = await app.finish()
    expect(code).toBe(0)
    expect(stdout).toBe('echo: hello\n')
  })

  it('on SIGINT during a turn, ends the turn in the session log before exiting', async () => {
    const { file, dir, sessions } = await writeApp([
      `- { id: app, name: dsh-stdio-demo, config: { persistenceRoot: ./sessions, model: scripted-slow } }`,
      `- { id: slow, name: dsh-llm-scripted, config: { models: [scripted-slow], script: ./script.json } }`,
    ].join('\n') + '\n')
    await writeFile(join(dir, 'script.json'), JSON.stringify({ responses: [{ text: 'too late', delayMs: 20_000 }] }))
    const app = new App([file])
    app.send('hello')
    await until(async () => (await sessionEvents(sessions).catch(() => [])).some((event) => event.type === 'request/header'))
    const { code, stdout } = await app.stop('SIGINT')
    expect(code).toBe(0)
    expect(stdout).toBe('')
    const events = await sessionEvents(sessions)
    expect(events.slice(-2).map((event) => event.type)).toEqual(['step/end', 'turn/end'])
    expect(events.at(-1)!.data).toMatchObject({ turn: 1, reason: 'cancelled' })
  })

  it('runs the shipped cordis.yml when given no file, from any working directory', async () => {
    const cwd = await tempDir()
    const state = await tempDir()
    const result = await run([], 'hi\n', { cwd, env: { XDG_STATE_HOME: state } })
    expect(result).toMatchObject({ code: 0, stdout: 'echo: hi\n' })
    // the default session folder follows the working directory, in the user's state folder (state-folder.spec.ts)
    expect((await readdir(defaultSessionRoot(cwd, { XDG_STATE_HOME: state }))).filter((name) => name.endsWith('.jsonl'))).toHaveLength(1)
  })

  it('the shipped cordis.yml tells the working folder as runtime context: the header is the same bytes in every folder', async () => {
    const state = await tempDir()
    const logged = []
    for (const cwd of [await tempDir(), await tempDir()]) {
      expect(await run([], 'hi\n', { cwd, env: { XDG_STATE_HOME: state } })).toMatchObject({ code: 0, stdout: 'echo: hi\n' })
      const events = await sessionEvents(defaultSessionRoot(cwd, { XDG_STATE_HOME: state }))
      const snapshots = events.filter((event) => event.type === 'context/snapshot')
      expect(snapshots.map((event) => event.data.sections)).toEqual([[{ name: 'deployment:context', text: `The working directory is ${cwd}.` }]])
      logged.push(headers(events))
    }
    expect(logged[0]).toHaveLength(1)
    expect(JSON.stringify(logged[0]![0].header)).toBe(JSON.stringify(logged[1]![0].header))
    expect(JSON.stringify(logged[0]![0].header)).not.toContain('working directory')
  })
})

describe('a bad app file', () => {
  it('fails the boot on toolOrder: [] with one line naming the file, the entry and the value', async () => {
    const { file } = await writeApp(appYaml({ toolOrder: [] }))
    const result = await run([file], 'hello\n')
    expect(result.code).toBe(1)
    expect(result.stdout).toBe('')
    expect(result.stderr).toBe(
      `${file}: entry "app" (dsh-stdio-demo): failed to start: `
      + 'toolOrder is an empty list; omit the key for lexicographic order, or list names around "<unlisted-tools>"\n',
    )
  })

  it('fails the boot on a wrong app key', async () => {
    const { file } = await writeApp(appYaml({ welcome: 5 }))
    const result = await run([file], 'hello\n')
    expect(result).toMatchObject({ code: 1, stdout: '' })
    expect(result.stderr).toMatch(/^.*app\.yml: entry "app" \(dsh-stdio-demo\): invalid config: .*welcome.*\n$/)
  })

  it('fails the boot on a misspelled app key instead of running with the default', async () => {
    const { file } = await writeApp(appYaml({ modle: 'deepseek-chat' }))
    const result = await run([file], 'hello\n')
    expect(result).toMatchObject({ code: 1, stdout: '' })
    expect(result.stderr).toMatch(/^.*app\.yml: entry "app" \(dsh-stdio-demo\): invalid config: unknown key \$\.modle; valid keys: .*\bmodel\b.*\bwelcome\b.*\n$/)
    expect(result.stderr.split('\n')).toHaveLength(2)
  })

  it('fails when no entry runs the app plugin', async () => {
    const { file } = await writeApp('- { id: spine, name: dsh-harness, config: { persistenceRoot: ./sessions } }\n')
    const result = await run([file], 'hello\n')
    expect(result).toMatchObject({ code: 1, stdout: '' })
    expect(result.stderr).toBe(`${file}: no enabled entry runs dsh-stdio-demo; add one, e.g. "- { id: app, name: dsh-stdio-demo }"\n`)
  })

  it('fails on a missing file and on extra arguments', async () => {
    const dir = await tempDir()
    const missing = await run([join(dir, 'nope.yml')], '')
    expect(missing).toMatchObject({ code: 1, stdout: '' })
    expect(missing.stderr).toMatch(/nope\.yml: cannot read app file: ENOENT/)
    const extra = await run(['a.yml', 'b.yml'], '')
    expect(extra).toMatchObject({ code: 1, stdout: '' })
    expect(extra.stderr).toBe('expected at most one app file, got 2 arguments (dsh-stdio-demo --help shows the usage)\n')
  })
})
