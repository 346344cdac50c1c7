import { spawn } from 'node:child_process'
import { lstat, readFile, readdir, stat, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { App, BIN, appYaml, run, writeApp, type Exit } from './setup.ts'

const logs = async (folder: string) => (await readdir(folder)).filter((name) => name.endsWith('.jsonl')).sort()

/** One stored session in a fresh app folder: its id and the folders. */
async function withSession(prompt = 'first question') {
  const app = await writeApp(appYaml({}))
  expect(await run([app.file], `${prompt}\n`)).toMatchObject({ code: 0 })
  const [log] = await logs(app.sessions)
  return { ...app, id: log!.slice(0, -'.jsonl'.length) }
}

/** The bin under `umask 022`, as most shells run it. */
function runUnderUmask(args: string[], input: string): Promise<Exit> {
  const child = spawn('/bin/sh', ['-c', 'umask 022 && exec "$0" "$@"', process.execPath, BIN, ...args], {
    env: { ...process.env, DSH_LOG_LEVEL: '', DSH_STARTUP_TIMEOUT_MS: '' },
  })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk })
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk })
  child.stdin.end(input)
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })))
}

describe('session files a user did not write through DSH', () => {
  it('a planted symlink is listed as broken and never written through: the file it points to keeps its bytes', async () => {
    const { file, dir, sessions, id } = await withSession()
    const victim = join(dir, 'victim.txt')
    await writeFile(victim, 'precious\n')
    await symlink(victim, join(sessions, 'evil.jsonl'))

    const listed = await run([file, '--sessions'], '')
    expect(listed).toMatchObject({ code: 0, stderr: '' })
    expect(listed.stdout).toMatch(new RegExp(`^${id}  \\S+  1 turn  "first question"\\nevil  broken: .*not a regular file.*\\n$`))
    const resumed = await run([file, '--resume', 'evil'], 'hello\n')
    expect(resumed.code).toBe(1)
    expect(resumed.stderr.trimEnd().split('\n')).toHaveLength(1)
    expect(resumed.stderr).toContain('evil.jsonl')
    expect(resumed.stderr).toContain('not a regular file')
    expect(await readFile(victim, 'utf8')).toBe('precious\n')
    expect((await lstat(join(sessions, 'evil.jsonl'))).isSymbolicLink()).toBe(true)
  })

  it('listing writes nothing: a torn last line stays until the session is resumed, which cuts it off and goes on', async () => {
    const { file, sessions, id } = await withSession()
    const path = join(sessions, `${id}.jsonl`)
    const whole = await readFile(path, 'utf8')
    await writeFile(path, `${whole}{"seq":99,"ti`)
    const before = await stat(path)

    const listed = await run([file, '--sessions'], '')
    expect(listed.code).toBe(0)
    expect(listed.stderr).toMatch(/^[^\n]*, line \d+: skipped a torn last line [^\n]*; the next append cuts it off the file\n$/)
    expect(listed.stdout).toMatch(new RegExp(`^${id}  \\S+  1 turn  "first question"\\n$`))
    const after = await stat(path)
    expect(after.size).toBe(before.size)
    expect(after.mtimeMs).toBe(before.mtimeMs)

    const resumed = await run([file, '--resume', id], 'second\n')
    expect(resumed).toMatchObject({ code: 0, stdout: 'echo: second\n' })
    expect(resumed.stderr).toMatch(/skipped a torn last line/)
    const lines = (await readFile(path, 'utf8')).trimEnd().split('\n').map((line) => JSON.parse(line))
    expect(lines.map((event) => event.seq)).toEqual(lines.map((_, index) => index + 1))
    expect((await readFile(path, 'utf8')).startsWith(whole)).toBe(true)
  })

  it('--continue warns about a torn last line once, though it reads the log to choose it and again to open it', async () => {
    const { file, sessions, id } = await withSession()
    const path = join(sessions, `${id}.jsonl`)
    await writeFile(path, `${await readFile(path, 'utf8')}{"seq":99,"ti`)
    const continued = await run([file, '--continue'], 'second\n')
    expect(continued).toMatchObject({ code: 0, stdout: 'echo: second\n' })
    expect(continued.stderr).toMatch(/^[^\n]*, line \d+: skipped a torn last line [^\n]*; the next append cuts it off the file\n$/)
  })

  it('a corrupt neighbour is one "broken" line in --sessions, and --continue and --resume of a healthy session still work', async () => {
    const { file, sessions, id } = await withSession()
    await writeFile(join(sessions, 'broken.jsonl'), 'this is not json\n{"neither": is this}\n')

    const listed = await run([file, '--sessions'], '')
    expect(listed).toMatchObject({ code: 0, stderr: '' })
    const lines = listed.stdout.trimEnd().split('\n')
    expect(lines).toHaveLength(2)
    expect(lines[0]).toMatch(new RegExp(`^${id}  \\S+  1 turn  "first question"$`))
    expect(lines[1]).toMatch(/^broken  broken: \S*broken\.jsonl, line 1: .+$/)

    expect(await run([file, '--continue'], 'next\n')).toMatchObject({ code: 0, stdout: 'echo: next\n', stderr: '' })
    expect(await run([file, '--resume', id], 'again\n')).toMatchObject({ code: 0, stdout: 'echo: again\n', stderr: '' })
    const refused = await run([file, '--resume', 'broken'], 'hi\n')
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/^\S*app\.yml: entry "app" \(dsh-stdio-demo\): cannot open a session \(persistenceRoot "\S+sessions"\): \S*broken\.jsonl, line 1: [^\n]+\n$/)
  })

  it('a log with bytes that are not UTF-8 is listed as broken naming the byte offset, and is left as it is', async () => {
    const { file, sessions, id } = await withSession('café question')
    const path = join(sessions, `${id}.jsonl`)
    const utf8 = await readFile(path)
    const at = utf8.indexOf(Buffer.from('é'))
    // what an editor saving as Latin-1 makes of it
    const latin1 = Buffer.concat([utf8.subarray(0, at), Buffer.from([0xe9]), utf8.subarray(at + 2)])
    await writeFile(path, latin1)
    const listed = await run([file, '--sessions'], '')
    expect(listed).toMatchObject({ code: 0, stderr: '' })
    const line = utf8.subarray(0, at).toString().split('\n').length
    expect(listed.stdout).toBe(`${id}  broken: ${path}, line ${line}: not valid UTF-8 at byte offset ${at}; the log cannot be opened\n`)
    expect(await readFile(path)).toEqual(latin1)
  })
})

describe('one writer per JSONL session', () => {
  it('a second process resuming an open session is refused with BUSY in one line; the first goes on; once it exits the session opens', async () => {
    const { file, sessions, id } = await withSession()
    const first = new App([file, '--resume', id])
    first.send('from the first')
    await first.until(() => first.stdout.includes('echo: from the first\n'), 'answering')

    const second = await run([file, '--resume', id], 'from the second\n')
    expect(second.code).toBe(1)
    expect(second.stdout).toBe('')
    expect(second.stderr).toMatch(new RegExp(`^\\S*app\\.yml: entry "app" \\(dsh-stdio-demo\\): cannot open a session \\(persistenceRoot "\\S+sessions"\\): `
      + `session "${id}" is busy: another process is writing it \\(pid ${first.pid}[^\\n]*\\); one writer per session[^\\n]*\\n$`))
    const listed = await run([file, '--sessions'], '')
    expect(listed.stdout).toBe(`${id}  in use: another process is writing it\n`)

    first.send('still the first')
    await first.until(() => first.stdout.includes('echo: still the first\n'), 'answering again')
    expect(await first.finish()).toMatchObject({ code: 0 })
    expect(await run([file, '--resume', id], 'now the second\n')).toMatchObject({ code: 0, stdout: 'echo: now the second\n' })
    const seqs = (await readFile(join(sessions, `${id}.jsonl`), 'utf8')).trimEnd().split('\n').map((line) => JSON.parse(line).seq)
    expect(seqs).toEqual(seqs.map((_, index) => index + 1))
  })

  it('a lock left by a killed process is stale: the next process takes the session over', async () => {
    const { file, sessions, id } = await withSession()
    const killed = new App([file, '--resume', id])
    killed.send('before the kill')
    await killed.until(() => killed.stdout.includes('echo: before the kill\n'), 'answering')
    expect(await readdir(sessions)).toContain(`${id}.lock`)
    await killed.stop('SIGKILL')
    expect(await run([file, '--resume', id], 'after the kill\n')).toMatchObject({ code: 0, stdout: 'echo: after the kill\n' })
    expect(await readdir(sessions)).not.toContain(`${id}.lock`)
  })
})

describe('session file permissions', () => {
  it('folders are created 0700 and logs 0600 under umask 022: prompts and tool output stay private', async () => {
    const { file, sessions } = await writeApp(appYaml({ persistenceRoot: './deep/sessions' }))
    expect(await runUnderUmask([file], 'a private prompt\n')).toMatchObject({ code: 0, stdout: 'echo: a private prompt\n' })
    const root = join(sessions, '..', 'deep', 'sessions')
    expect((await stat(join(root, '..'))).mode & 0o777).toBe(0o700)
    expect((await stat(root)).mode & 0o777).toBe(0o700)
    const [log] = await logs(root)
    expect((await stat(join(root, log!))).mode & 0o777).toBe(0o600)
  })
})
