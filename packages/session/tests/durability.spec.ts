import nodeFs, { promises as fs } from 'node:fs'
import { open } from 'node:fs/promises'
import { join } from 'node:path'
import { Context } from 'cordis'
import { afterEach, describe, expect, it, vi } from 'vitest'
import SessionStore from '../src/index.ts'
import type { Durability } from '../src/durability.ts'
import { chatTurn, readLines, setup, tempDir } from './helpers.ts'

/** Counts fsyncs (datasync) and writes made through any open file. */
async function countSyncs() {
  const probe = await open(join(await tempDir(), 'probe'), 'w')
  const proto = Object.getPrototypeOf(probe)
  await probe.close()
  writes = vi.spyOn(nodeFs, 'writeSync')
  return vi.spyOn(proto, 'datasync')
}
let writes: ReturnType<typeof vi.spyOn>
/** Writes of log lines (the test runner may write to its own outputs meanwhile). */
const logWrites = () => writes.mock.calls.filter((call: unknown[]) => String(call[1]).includes('"type":"user/message"')).length

afterEach(() => { vi.restoreAllMocks() })

describe('durability', () => {
  it.each([
    ['turn', () => 1],
    ['event', () => logWrites()],
    ['none', () => 0],
  ] as [Durability, () => number][])('%s: a 13-event turn followed by flushed() makes the right fsyncs and reaches the file', async (durability, expected) => {
    const root = await tempDir()
    const { sessions } = await setup({ persistenceRoot: root, durability })
    const session = await sessions.create('s')
    // the log is created (and opened) by the first append: do that before counting
    session.append('turn/start', { turn: 1 })
    await session.flushed()
    const syncs = await countSyncs()
    for (let i = 0; i < 13; i++) {
      session.append('user/message', { turn: 1, text: `line ${i}` })
      // Each event its own write batch, as in a turn where the loop awaits the model between events.
      await new Promise((resolve) => setTimeout(resolve, 1))
    }
    await session.flushed()
    expect(logWrites()).toBeGreaterThan(1)
    expect(syncs.mock.calls.length).toBe(expected())
    expect((await readLines(join(root, 's.jsonl'))).length - 1).toBe(14)
  })

  it('written() resolves once the lines are in the file, without the fsync that `turn` keeps for the turn end', async () => {
    const root = await tempDir()
    const { sessions } = await setup({ persistenceRoot: root })
    const session = await sessions.create('s')
    const syncs = await countSyncs()
    // a new session: its log is created by this first append, asynchronously
    chatTurn(session, 1)
    await session.written()
    expect((await readLines(join(root, 's.jsonl'))).length - 1).toBe(session.lastSeq)
    expect(syncs).not.toHaveBeenCalled()
    await session.flushed()
    expect(syncs).toHaveBeenCalledTimes(1)
  })

  it('written() rejects with the store\'s failure, and resolves at once in memory', async () => {
    const root = await tempDir()
    const { sessions } = await setup({ persistenceRoot: root, durability: 'event' })
    const session = await sessions.create('s')
    session.append('turn/start', { turn: 1 })
    await session.written()
    await fs.rm(root, { recursive: true })
    session.append('user/message', { turn: 1, text: 'lost' })
    await expect(session.written()).rejects.toThrow(/the file was deleted while the session was open/)
    const memory = await setup({ persist: false })
    const kept = await memory.sessions.create('m')
    kept.append('turn/start', { turn: 1 })
    await expect(kept.written()).resolves.toBeUndefined()
  })

  it('turn is the default, and the store reports it', async () => {
    const { sessions } = await setup({})
    expect(sessions.durability).toBe('turn')
  })

  it('a turn awaited with flushed() is fsynced before flushed() resolves', async () => {
    const root = await tempDir()
    const { sessions } = await setup({ persistenceRoot: root })
    const session = await sessions.create('s')
    const syncs = await countSyncs()
    chatTurn(session, 1)
    let resolved = false
    const flushed = session.flushed().then(() => { resolved = true })
    await vi.waitFor(() => expect(syncs).toHaveBeenCalled())
    await flushed
    expect(resolved).toBe(true)
    const synced = syncs.mock.results.at(-1)!.value
    await expect(synced).resolves.toBeUndefined()
  })

  it.each(['always', '', 1])('refuses durability %j, listing the valid modes', async (durability) => {
    expect(() => SessionStore.Config({ durability } as any)).toThrow()
    expect(() => new SessionStore(new Context(), { persistenceRoot: 'x', persist: false, durability } as any))
      .toThrow(/^durability .* is not one of turn, event, none$/)
  })

  it('keeps one file open across appends (no open per batch)', async () => {
    const root = await tempDir()
    const { sessions } = await setup({ persistenceRoot: root, durability: 'none' })
    const session = await sessions.create('s')
    const opens = vi.spyOn(fs, 'appendFile')
    for (let turn = 1; turn <= 5; turn++) {
      chatTurn(session, turn)
      await session.flushed()
    }
    expect(opens).not.toHaveBeenCalled()
    await sessions.close('s')
    expect((await readLines(join(root, 's.jsonl'))).length - 1).toBe(session.lastSeq)
  })
})
