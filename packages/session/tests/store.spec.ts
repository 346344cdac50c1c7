import { promises as fs } from 'node:fs'
import { join, resolve } from 'node:path'
import { Context } from 'cordis'
import { describe, expect, it } from 'vitest'
import { SessionError, defaultSessionRoot } from '../src/index.ts'
import { SessionStore } from '../src/store.ts'
import { stateHome } from '../src/state-folder.ts'
import { chatTurn, header, readLines, registryUpdate, setup, tempDir, tool } from './helpers.ts'

async function expectCode(promise: Promise<unknown>, code: string, ...fragments: string[]) {
  const error = await promise.then(() => undefined, (e: unknown) => e)
  expect(error).toBeInstanceOf(SessionError)
  expect((error as SessionError).code).toBe(code)
  for (const fragment of fragments) expect((error as SessionError).message).toContain(fragment)
}

describe('SessionStore config', () => {
  it('defaults to the state folder of the working directory, persisted', async () => {
    const { sessions } = await setup()
    expect(sessions.root).toBe(defaultSessionRoot(process.cwd(), process.env))
    expect(sessions.root.startsWith(join(stateHome(process.env), 'dsh', 'sessions'))).toBe(true)
  })

  it('resolves a relative persistenceRoot against the working directory', async () => {
    const { sessions } = await setup({ persistenceRoot: 'some/where', persist: false })
    expect(sessions.root).toBe(join(process.cwd(), 'some/where'))
  })

  it('names its location: the absolute folder, or memory when persist is false', async () => {
    expect((await setup({ persistenceRoot: 'some/where' })).sessions.location).toBe(join(process.cwd(), 'some/where'))
    expect((await setup({ persistenceRoot: 'some/where', persist: false })).sessions.location).toBe('memory (persist: false)')
  })

  it.each([
    [{ persistenceRoot: 5 }],
    [{ persistenceRoot: '' }],
    [{ persistenceRoot: ['./a'] }],
    [{ persist: 'yes' }],
    [{ persist: 1 }],
  ])('rejects the bad config %j', async (config) => {
    const ctx = new Context()
    await expect(ctx.plugin(SessionStore, config as never)).rejects.toThrow(/persist/)
  })
})

describe('SessionStore ids', () => {
  it.each(['', 'a/b', '../up', 'dot.ted', 'spa ce', 'héllo', 'x'.repeat(129)])('rejects the id %j', async (id) => {
    const root = await tempDir()
    const { sessions } = await setup({ persistenceRoot: root })
    for (const call of [sessions.create(id), sessions.open(id), sessions.openOrCreate(id)]) {
      await expectCode(call, 'INVALID_ID', JSON.stringify(id), 'A-Z')
    }
    expect(await fs.readdir(root)).toEqual([])
  })

  it('rejects a non-string id', async () => {
    const { sessions } = await setup({ persist: false })
    await expectCode(sessions.create(42 as never), 'INVALID_ID', '42')
  })

  it('accepts a 128-character id and makes a valid random id when none is given', async () => {
    const root = await tempDir()
    const { sessions } = await setup({ persistenceRoot: root })
    const long = await sessions.create('x'.repeat(128))
    const random = await sessions.create()
    expect(random.id).toMatch(/^[A-Za-z0-9_-]{1,128}$/)
    expect(random.id).not.toBe((await sessions.create()).id)
    long.append('turn/start', { turn: 1 })
    await long.flushed()
    // the lock lives while the session is open
    expect(await fs.readdir(root)).toEqual([`${long.id}.jsonl`, `${long.id}.lock`])
    await sessions.close(long.id)
    expect(await fs.readdir(root)).toEqual([`${long.id}.jsonl`])
  })
})

describe('SessionStore lazy logs', () => {
  it('writes no folder and no file until the first append, then both', async () => {
    const root = join(await tempDir(), 'nested', 'logs')
    const { sessions } = await setup({ persistenceRoot: root })
    const session = await sessions.create('late')
    await sessions.openOrCreate('other')
    await session.flushed()
    await sessions.flush()
    await expect(fs.stat(root)).rejects.toThrow(/ENOENT/)
    session.append('turn/start', { turn: 1 })
    await session.flushed()
    expect(await fs.readdir(root)).toEqual(['late.jsonl', 'late.lock'])
    await sessions.close('other')
    expect(await fs.readdir(root)).toEqual(['late.jsonl', 'late.lock'])
    await sessions.close('late')
    expect(await fs.readdir(root)).toEqual(['late.jsonl'])
  })

  it('fails create() when a part of persistenceRoot is a file, naming the path', async () => {
    const root = await tempDir()
    await fs.writeFile(join(root, 'blocker'), '')
    const { sessions } = await setup({ persistenceRoot: join(root, 'blocker', 'deeper') })
    const error = await sessions.create('s').then(() => undefined, (e: Error) => e)
    expect(error?.message).toMatch(/ENOTDIR.*blocker/)
  })

  it('a first append fails WRITE_FAILED when another store created the same log in between', async () => {
    const root = await tempDir()
    const { sessions, logs } = await setup({ persistenceRoot: root })
    const mine = await sessions.create('race')
    const other = await setup({ persistenceRoot: root })
    const theirs = await other.sessions.create('race')
    theirs.append('turn/start', { turn: 1 })
    await theirs.flushed()
    mine.append('turn/start', { turn: 1 })
    const error = await mine.flushed().then(() => undefined, (e: unknown) => e)
    expect(error).toMatchObject({ code: 'WRITE_FAILED', message: expect.stringContaining('another store created') })
    // the caller hears it (the loop ends the turn with it): logged at the debug level only, so a user reads it once
    expect(logs.filter(message => message.type !== 'debug')).toEqual([])
    expect(await readLines(join(root, 'race.jsonl'))).toHaveLength(2)
  })
})

describe('SessionStore lifecycle', () => {
  it('round-trips a session through a second Context and resumes it', async () => {
    const root = await tempDir()
    const first = await setup({ persistenceRoot: root })
    const session = await first.sessions.create('chat-1')
    expect(session.resumed).toBe(false)
    const h1 = header(session, [tool('read')], 'initial')
    chatTurn(session, 1)
    const h2 = header(session, [tool('edit'), tool('read')])
    registryUpdate(session, h2, ['edit'], [])
    session.append('example/observed', { reason: 'tools' })
    await first.fiber.dispose()

    const second = await setup({ persistenceRoot: root })
    const loaded = await second.sessions.open('chat-1')
    expect(loaded.resumed).toBe(true)
    expect(loaded.events()).toEqual(session.events())
    expect(loaded.messages().toArray()).toEqual(session.messages().toArray())
    expect(loaded.requestHeader()).toEqual(session.requestHeader())
    expect(loaded.toolHistory()).toMatchObject({ sequenceStartSeq: h1, updates: session.toolHistory()!.updates })
    expect(loaded.toolHistory()!.resolve('edit', h2)).toEqual(tool('edit'))
    expect(Object.isFrozen(loaded.events()[0]!.data)).toBe(true)
    const next = loaded.append('turn/start', { turn: 2 })
    expect(next.seq).toBe(session.lastSeq + 1)
  })

  // the rest of opening, creating and listing is the store contract (contract.spec.ts)
  it('names the log file in NOT_FOUND and EXISTS, lists only well-named .jsonl files, and resumes a file on disk', async () => {
    const root = await tempDir()
    const { sessions } = await setup({ persistenceRoot: root })
    await expectCode(sessions.open('missing'), 'NOT_FOUND', 'missing', join(root, 'missing.jsonl'))
    await sessions.create('b')
    await fs.writeFile(join(root, 'a.jsonl'), '')
    await fs.writeFile(join(root, 'notes.txt'), '')
    await fs.writeFile(join(root, 'bad id.jsonl'), '')
    await expectCode(sessions.create('a'), 'EXISTS', join(root, 'a.jsonl'))
    expect(await sessions.list()).toEqual(['a', 'b'])
    expect((await sessions.openOrCreate('a')).resumed).toBe(true)
  })

  it('shares one load between concurrent opens', async () => {
    const root = await tempDir()
    const { sessions } = await setup({ persistenceRoot: root })
    await fs.writeFile(join(root, 'shared.jsonl'), '')
    const [x, y, z] = await Promise.all([sessions.open('shared'), sessions.open('shared'), sessions.openOrCreate('shared')])
    expect(x).toBe(y)
    expect(y).toBe(z)
  })

  it('keeps sessions in memory only when persist is false', async () => {
    const root = join(await tempDir(), 'never')
    const { sessions } = await setup({ persistenceRoot: root, persist: false })
    const session = await sessions.create('mem')
    chatTurn(session, 1)
    await session.flushed()
    await sessions.flush()
    expect(await sessions.open('mem')).toBe(session)
    await expectCode(sessions.open('other'), 'NOT_FOUND', 'persistence is off')
    expect((await sessions.openOrCreate('other')).resumed).toBe(false)
    expect(await sessions.list()).toEqual(['mem', 'other'])
    await expect(fs.stat(root)).rejects.toThrow(/ENOENT/)
  })

  it('flushes pending appends when the service is disposed', async () => {
    const root = await tempDir()
    const { sessions, fiber } = await setup({ persistenceRoot: root })
    const session = await sessions.create('busy')
    for (let turn = 1; turn <= 200; turn++) chatTurn(session, turn)
    await fiber.dispose()
    const lines = await readLines(join(root, 'busy.jsonl'))
    expect(lines.at(-1)).toBe('')
    expect(lines.length - 1).toBe(session.lastSeq)
  })

  it('fails loudly once a write fails, and refuses further appends', async () => {
    const root = await tempDir()
    const { sessions, logs } = await setup({ persistenceRoot: join(root, 'logs') })
    const session = await sessions.create('doomed')
    // the log's folder is made at the first append; a file in its place makes that fail
    await fs.writeFile(join(root, 'logs'), '')
    session.append('turn/start', { turn: 1 })
    const error = await session.flushed().then(() => undefined, (e: unknown) => e)
    expect(error).toMatchObject({ code: 'WRITE_FAILED' })
    expect((error as Error).message).toContain(join(root, 'logs', 'doomed.jsonl'))
    expect(() => session.append('turn/start', { turn: 2 })).toThrow(expect.objectContaining({ code: 'WRITE_FAILED' }))
    expect(logs.filter(message => message.type !== 'debug')).toEqual([])
    // nothing reached the storage: a caller may start the session afresh
    expect(session.stored).toBe(false)
    await expect(sessions.flush()).rejects.toMatchObject({ code: 'WRITE_FAILED' })
  })
})
