import { promises as fs } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { SessionError } from '../src/index.ts'
import { chatTurn, readLines, setup, tempDir } from './helpers.ts'

const T = '2025-01-02T03:04:05.678Z'
const line = (seq: number, type = 'turn/start', data: object = { turn: seq }) => JSON.stringify({ seq, time: T, type, data })

async function logWith(content: string | Buffer) {
  const root = await tempDir()
  const path = join(root, 's.jsonl')
  await fs.writeFile(path, content)
  const store = await setup({ persistenceRoot: root })
  return { ...store, root, path }
}

async function expectLoadError(content: string, code: string, lineNo: number, ...fragments: string[]) {
  const { sessions, path } = await logWith(content)
  const error = await sessions.open('s').then(() => undefined, (e: unknown) => e)
  expect(error).toBeInstanceOf(SessionError)
  expect((error as SessionError).code).toBe(code)
  expect((error as SessionError).message).toContain(`${path}, line ${lineNo}:`)
  for (const fragment of fragments) expect((error as SessionError).message).toContain(fragment)
  expect(await fs.readFile(path, 'utf8')).toBe(content)
  expect(sessions.get('s')).toBeUndefined()
}

describe('JSONL persistence', () => {
  it('writes one event per line in append order under many concurrent appends', async () => {
    const root = await tempDir()
    const { sessions } = await setup({ persistenceRoot: root })
    const [a, b] = await Promise.all([sessions.create('a'), sessions.create('b')])
    await fc.assert(fc.asyncProperty(fc.array(fc.tuple(fc.boolean(), fc.nat(3)), { minLength: 1, maxLength: 300 }), async (plan) => {
      const pending: Promise<void>[] = []
      for (const [toA, pause] of plan) {
        const session = toA ? a : b
        session.append('user/message', { turn: session.lastSeq, text: 'x'.repeat(pause * 500) })
        if (pause === 0) pending.push(session.flushed())
        for (let i = 0; i < pause; i++) await Promise.resolve()
      }
      await Promise.all(pending)
    }), { numRuns: 20 })
    await sessions.flush()
    for (const session of [a, b]) {
      const lines = await readLines(join(root, `${session.id}.jsonl`))
      expect(lines.pop()).toBe('')
      expect(lines.map(text => JSON.parse(text).seq)).toEqual(session.events().map(event => event.seq))
      expect(lines.map(text => JSON.parse(text))).toEqual(session.events())
    }
  })

  it('resolves flushed() only once the appended events are on disk', async () => {
    const root = await tempDir()
    const { sessions } = await setup({ persistenceRoot: root })
    const session = await sessions.create('s')
    for (let turn = 1; turn <= 50; turn++) {
      chatTurn(session, turn)
      await session.flushed()
      expect((await readLines(join(root, 's.jsonl'))).length - 1).toBe(session.lastSeq)
    }
  })

  it('loads events frozen at every depth', async () => {
    const call = { id: 'c1', name: 'read', arguments: { path: 'a.ts', options: { lines: [1, 2], deep: { flag: true } } } }
    const { sessions } = await logWith(line(1, 'assistant/message', { turn: 1, step: 1, text: '', toolCalls: [call] }) + '\n')
    const [event] = (await sessions.open('s')).events() as any[]
    expect(event.data.toolCalls[0].arguments).toEqual(call.arguments)
    for (const node of [event, event.data, event.data.toolCalls, event.data.toolCalls[0], event.data.toolCalls[0].arguments,
      event.data.toolCalls[0].arguments.options, event.data.toolCalls[0].arguments.options.lines, event.data.toolCalls[0].arguments.options.deep]) {
      expect(Object.isFrozen(node)).toBe(true)
    }
    expect(() => { event.data.toolCalls[0].arguments.options.deep.flag = false }).toThrow(TypeError)
  })

  it('loads an empty log as an empty resumed session', async () => {
    const { sessions } = await logWith('')
    const session = await sessions.open('s')
    expect(session.resumed).toBe(true)
    expect(session.lastSeq).toBe(0)
  })

  it('skips a torn last line with a warning, leaves the file as it is until the first append cuts it off', async () => {
    const good = `${line(1)}\n${line(2, 'user/message', { turn: 1, text: '日本語' })}\n`
    const torn = Buffer.concat([Buffer.from(good), Buffer.from(line(3)).subarray(0, 20), Buffer.from('語').subarray(0, 2)])
    const { sessions, path, logs, root } = await logWith(torn)
    const session = await sessions.open('s')
    expect(session.lastSeq).toBe(2)
    expect(session.messages().toArray()).toEqual([{ role: 'user', text: '日本語' }])
    const warning = logs.find(message => message.type === 'warn')
    expect(warning?.name).toBe('session')
    expect(String(warning?.args[0])).toContain(`${path}, line 3`)
    expect(await fs.readFile(path)).toEqual(torn)
    session.append('turn/start', { turn: 2 })
    await session.flushed()
    const lines = await readLines(path)
    expect(lines).toHaveLength(4)
    expect(JSON.parse(lines[2]!)).toMatchObject({ seq: 3, type: 'turn/start' })

    await sessions.close('s')
    const again = await setup({ persistenceRoot: root })
    expect((await again.sessions.open('s')).lastSeq).toBe(3)
  })

  it('keeps a complete last line that lost its newline and starts the next append on its own line', async () => {
    const { sessions, path } = await logWith(`${line(1)}\n${line(2)}`)
    const session = await sessions.open('s')
    expect(session.lastSeq).toBe(2)
    session.append('turn/start', { turn: 3 })
    await session.flushed()
    expect(await fs.readFile(path, 'utf8')).toBe(`${line(1)}\n${line(2)}\n${JSON.stringify(session.events()[2])}\n`)
  })

  it('fails on a corrupt line in the middle, naming file and line', async () => {
    await expectLoadError(`${line(1)}\n{"seq":2,"ti\n${line(3)}\n`, 'CORRUPT_LINE', 2, 'not valid JSON')
    await expectLoadError(`${line(1)}\n\n${line(2)}\n`, 'CORRUPT_LINE', 2)
  })

  it('fails on a line that is not UTF-8 (middle or complete last line), naming file, line and byte offset, never reading U+FFFD', async () => {
    const head = `${line(1)}\n`
    const latin1 = (text: string) => Buffer.from(line(2, 'user/message', { turn: 1, text }), 'latin1')
    for (const content of [Buffer.concat([Buffer.from(head), latin1('café'), Buffer.from(`\n${line(3)}\n`)]), Buffer.concat([Buffer.from(head), latin1('café')])]) {
      const { sessions, path } = await logWith(content)
      const error = await sessions.open('s').then(() => undefined, (e: unknown) => e)
      expect(error).toBeInstanceOf(SessionError)
      expect((error as SessionError).code).toBe('CORRUPT_LINE')
      const at = content.indexOf(0xe9)
      expect((error as SessionError).message).toBe(`${path}, line 2: not valid UTF-8 at byte offset ${at}; the log cannot be opened`)
      expect(await fs.readFile(path)).toEqual(content)
    }
  })

  it('fails on a line that parses but is not a valid event, naming file and line', async () => {
    await expectLoadError(`${line(1)}\n${line(2, 'turn/start', { turn: 'two' })}\n`, 'INVALID_EVENT', 2, 'turn/start', '"turn"')
    await expectLoadError(`${line(1)}\n${line(2, 'mystery')}\n`, 'INVALID_EVENT', 2, '"mystery"')
    await expectLoadError(`${line(1)}\n[1,2]\n`, 'INVALID_EVENT', 2, 'JSON object')
    await expectLoadError(`${line(1)}\n${JSON.stringify({ seq: 2, time: 'yesterday', type: 'turn/start', data: { turn: 1 } })}\n`, 'INVALID_EVENT', 2, '"time"')
    await expectLoadError(`${JSON.stringify({ seq: 1, time: T, type: 'turn/start', data: { turn: 1 }, extra: 1 })}\n`, 'INVALID_EVENT', 1, '"extra"')
    await expectLoadError(`${line(1)}\n${line(2, 'developer/message', { turn: 1, step: 1, source: 'tool-registry', added: [], removed: [], headerSeq: 1 })}\n`,
      'INVALID_EVENT', 2, 'headerSeq')
  })

  it('fails on seqs that are not contiguous from 1', async () => {
    await expectLoadError(`${line(1)}\n${line(3)}\n`, 'BAD_SEQ', 2, 'must be 2', 'got 3')
    await expectLoadError(`${line(2)}\n`, 'BAD_SEQ', 1, 'must be 1')
    await expectLoadError(`${line(1)}\n${line(1)}\n`, 'BAD_SEQ', 2)
  })
})
