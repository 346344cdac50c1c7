import { execFileSync } from 'node:child_process'
import { promises as fs } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { setup, tempDir } from './helpers.ts'

const T = '2025-01-02T03:04:05.678Z'
const event = (seq: number) => `${JSON.stringify({ seq, time: T, type: 'turn/start', data: { turn: seq } })}\n`

describe('what the JSONL store accepts as a session log', () => {
  it.each([
    ['a symbolic link', async (path: string, root: string) => {
      await fs.writeFile(join(root, 'victim.txt'), event(1))
      await fs.symlink(join(root, 'victim.txt'), path)
    }],
    ['a folder', (path: string) => fs.mkdir(path)],
    ['a special file', (path: string) => { execFileSync('mkfifo', [path]) }],
  ])('refuses %s in place of a log with UNSAFE_FILE naming the path, and writes nothing', async (what, plant) => {
    const root = await tempDir()
    const path = join(root, 's.jsonl')
    await plant(path, root)
    const { sessions } = await setup({ persistenceRoot: root })
    await expect(sessions.open('s')).rejects.toMatchObject({ code: 'UNSAFE_FILE', message: `session log ${path} is ${what}, not a regular file; it is not opened` })
    await expect(sessions.openOrCreate('s')).rejects.toMatchObject({ code: 'UNSAFE_FILE' })
    expect((await fs.readdir(root)).sort()).toEqual(what === 'a symbolic link' ? ['s.jsonl', 'victim.txt'] : ['s.jsonl'])
    if (what === 'a symbolic link') expect(await fs.readFile(join(root, 'victim.txt'), 'utf8')).toBe(event(1))
  })

  it('creates folders 0700 and logs 0600, whatever the umask', async () => {
    const root = join(await tempDir(), 'a', 'b')
    const { sessions } = await setup({ persistenceRoot: root })
    const session = await sessions.create('s')
    session.append('turn/start', { turn: 1 })
    await session.flushed()
    expect((await fs.stat(join(root, '..'))).mode & 0o777).toBe(0o700)
    expect((await fs.stat(root)).mode & 0o777).toBe(0o700)
    expect((await fs.stat(join(root, 's.jsonl'))).mode & 0o777).toBe(0o600)
    expect((await fs.stat(join(root, 's.lock'))).mode & 0o777).toBe(0o600)
  })
})

describe('one writer per JSONL session', () => {
  it('a second store opening an open session fails BUSY; after close it opens', async () => {
    const root = await tempDir()
    await fs.writeFile(join(root, 's.jsonl'), event(1))
    const first = await setup({ persistenceRoot: root })
    const second = await setup({ persistenceRoot: root })
    await first.sessions.open('s')
    await expect(second.sessions.open('s')).rejects.toMatchObject({
      code: 'BUSY',
      message: `session "s" is busy: another process is writing it (pid ${process.pid} holds ${join(root, 's.lock')}); one writer per session; `
        + 'the lock is released when that process closes the session or exits',
    })
    await first.sessions.close('s')
    expect((await second.sessions.open('s')).lastSeq).toBe(1)
  })

  it('takes over the lock of a process that is gone, and of a lock file without a pid', async () => {
    const root = await tempDir()
    await fs.writeFile(join(root, 's.jsonl'), event(1))
    const gone = Number(execFileSync(process.execPath, ['-p', 'process.pid'], { encoding: 'utf8' }))
    await fs.writeFile(join(root, 's.lock'), `${gone}\n`)
    const { sessions } = await setup({ persistenceRoot: root })
    expect((await sessions.open('s')).lastSeq).toBe(1)
    expect(await fs.readFile(join(root, 's.lock'), 'utf8')).toBe(`${process.pid}\n`)
    await sessions.close('s')
    await fs.writeFile(join(root, 's.lock'), 'garbage')
    expect((await sessions.open('s')).lastSeq).toBe(1)
    await sessions.close('s')
    expect(await fs.readdir(root)).toEqual(['s.jsonl'])
  })
})
