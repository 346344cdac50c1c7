import fc from 'fast-check'
import { afterEach, describe, expect, it } from 'vitest'
import { DURABILITY_MODES } from '../durability.ts'
import type { Session } from '../session.ts'
import type { SessionStoreApi } from '../store-api.ts'

/** One store started over some storage; `dispose()` flushes and stops it like an app shutdown. */
export interface OpenedStore {
  sessions: SessionStoreApi
  dispose(): Promise<void>
}

/** Fresh, empty storage (a folder, a database schema) that stores can be started over, again and again. */
export interface StoreSpace {
  /** Starts a store over this storage, as a new process would. */
  start(): Promise<OpenedStore>
  /** Removes the storage; called after the test, once every store on it is disposed. */
  remove(): Promise<void>
}

/** How the contract suite gets storage for the store under test. */
export interface StoreContractHarness {
  space(): Promise<StoreSpace>
  /** fast-check runs of the property test; keep it low for stores with slow round trips. */
  propertyRuns?: number
}

/** One 13-event turn: user text, a header, a tool round trip, an answer and an extension event. */
export function contractTurn(session: Session, turn: number): void {
  session.append('turn/start', { turn })
  session.append('user/message', { turn, text: `question ${turn}` })
  session.append('step/start', { turn, step: 1 })
  const reason = session.requestHeader() ? 'change' : 'initial'
  session.append('request/header', { turn, step: 1, reason, header: { model: 'm', system: `s${turn}`, tools: [orderedTool] } })
  session.append('assistant/message', { turn, step: 1, text: '', toolCalls: [{ id: `c${turn}`, name: 'read', arguments: { path: 'a' } }] })
  session.append('tool/call', { turn, step: 1, id: `c${turn}`, name: 'read', arguments: { path: 'a' } })
  session.append('tool/result', { turn, step: 1, id: `c${turn}`, name: 'read', output: 'contents', isError: false })
  session.append('step/end', { turn, step: 1 })
  session.append('step/start', { turn, step: 2 })
  session.append('assistant/message', {
    turn, step: 2, text: `answer ${turn}`, toolCalls: [],
    usage: { inputTokens: 10, outputTokens: 2, cacheReadTokens: 8, cacheWriteTokens: 0 },
  })
  session.append('step/end', { turn, step: 2 })
  // An extension event, as observers like dsh-cache-break-detector log them.
  session.append('contract/observed', { turn, cachedRatio: 0.8 })
  session.append('turn/end', { turn, reason: 'done' })
}

// Keys deliberately out of alphabetical and length order: a store that reorders object keys changes
// the serialized tool block, and with it the cached prompt prefix of a resumed session.
const orderedTool = {
  name: 'read',
  description: 'Read a file.',
  parameters: { type: 'object', required: ['path'], properties: { path: { type: 'string' }, a: { type: 'number' } } },
}

const bytes = (session: Session) => session.events().map(event => JSON.stringify(event)).join('\n')

async function failure(promise: Promise<unknown>): Promise<{ code?: string; message: string }> {
  const error = await promise.then(() => undefined, (e: unknown) => e)
  expect(error, 'expected a rejection').toBeInstanceOf(Error)
  return error as { code?: string; message: string }
}

/**
 * The behaviour every session store must share, as a vitest suite: run it from a spec file with a
 * harness that hands out fresh storage. It tests only the `sessions` API, never the storage itself.
 */
export function storeContract(name: string, harness: StoreContractHarness): void {
  const started: OpenedStore[] = []
  const spaces: StoreSpace[] = []

  afterEach(async () => {
    for (const store of started.splice(0).reverse()) await store.dispose()
    for (const space of spaces.splice(0)) await space.remove()
  })

  async function space(): Promise<StoreSpace> {
    const made = await harness.space()
    spaces.push(made)
    return made
  }

  async function start(over: StoreSpace): Promise<OpenedStore> {
    const store = await over.start()
    let disposed = false
    const once = { sessions: store.sessions, dispose: async () => { if (!disposed) { disposed = true; await store.dispose() } } }
    started.push(once)
    return once
  }

  describe(`session store contract: ${name}`, () => {
    it('resumes a session in a new store with the same events, byte for byte, and continues its seqs', async () => {
      const storage = await space()
      const first = await start(storage)
      const session = await first.sessions.create('chat-1')
      expect(session.resumed).toBe(false)
      contractTurn(session, 1)
      session.append('example/observed', { text: 'é 🙂 \u0000 "quoted" \\ \n', big: 2 ** 53 - 1, tiny: 1e-7, nested: { z: 1, a: [true, null] } })
      await session.flushed()
      await first.dispose()

      const second = await start(storage)
      const loaded = await second.sessions.open('chat-1')
      expect(loaded.resumed).toBe(true)
      expect(bytes(loaded)).toBe(bytes(session))
      expect(loaded.messages().toArray()).toEqual(session.messages().toArray())
      expect(JSON.stringify(loaded.requestHeader())).toBe(JSON.stringify(session.requestHeader()))
      contractTurn(loaded, 2)
      await loaded.flushed()
      await second.dispose()

      const third = await start(storage)
      const again = await third.sessions.open('chat-1')
      expect(again.lastSeq).toBe(session.lastSeq + 13)
      expect(bytes(again)).toBe(bytes(loaded))
    })

    it('creates, opens, lists and closes sessions', async () => {
      const storage = await space()
      const { sessions } = await start(storage)
      expect((await failure(sessions.open('missing'))).code).toBe('NOT_FOUND')
      const b = await sessions.openOrCreate('b')
      expect(b.resumed).toBe(false)
      expect(await sessions.openOrCreate('b')).toBe(b)
      expect(await sessions.open('b')).toBe(b)
      expect(sessions.get('b')).toBe(b)
      expect(sessions.get('a')).toBeUndefined()
      const taken = await failure(sessions.create('b'))
      expect(taken.code).toBe('EXISTS')
      expect(taken.message).toContain('"b"')
      await sessions.create('a')
      await sessions.create('B')
      await sessions.create('_')
      expect(await sessions.list()).toEqual(['B', '_', 'a', 'b'])
      contractTurn(b, 1)
      await sessions.close('b')
      expect(sessions.get('b')).toBeUndefined()
      const reopened = await sessions.open('b')
      expect(reopened).not.toBe(b)
      expect(bytes(reopened)).toBe(bytes(b))
      const random = await sessions.create()
      expect(random.id).toMatch(/^[A-Za-z0-9_-]{1,128}$/)
      expect(random.id).not.toBe((await sessions.create()).id)
    })

    it('refuses to create a session that another store already persisted', async () => {
      const storage = await space()
      const first = await start(storage)
      ;(await first.sessions.create('kept')).append('contract/observed', { n: 1 })
      await first.dispose()
      const second = await start(storage)
      expect((await failure(second.sessions.create('kept'))).code).toBe('EXISTS')
      expect(await second.sessions.list()).toEqual(['kept'])
      expect((await second.sessions.openOrCreate('kept')).resumed).toBe(true)
    })

    it('stores a session with its first append: one without events leaves nothing behind', async () => {
      const storage = await space()
      const first = await start(storage)
      await first.sessions.create('never')
      await first.sessions.openOrCreate('either')
      const closed = await first.sessions.create('closed')
      expect(await first.sessions.list()).toEqual(['closed', 'either', 'never'])
      await first.sessions.close('closed')
      expect(closed.events()).toEqual([])
      await first.dispose()

      const second = await start(storage)
      expect(await second.sessions.list()).toEqual([])
      for (const id of ['never', 'either', 'closed']) expect((await failure(second.sessions.open(id))).code).toBe('NOT_FOUND')
      const again = await second.sessions.create('never')
      expect(again.resumed).toBe(false)
      again.append('contract/observed', { n: 1 })
      expect((await second.sessions.openOrCreate('either')).resumed).toBe(false)
      await second.dispose()

      const third = await start(storage)
      expect(await third.sessions.list()).toEqual(['never'])
      expect((await third.sessions.open('never')).lastSeq).toBe(1)
    })

    it('shares one load between concurrent opens', async () => {
      const storage = await space()
      const first = await start(storage)
      contractTurn(await first.sessions.create('shared'), 1)
      await first.dispose()
      const { sessions } = await start(storage)
      const [x, y, z] = await Promise.all([sessions.open('shared'), sessions.open('shared'), sessions.openOrCreate('shared')])
      expect(x).toBe(y)
      expect(y).toBe(z)
      expect(x.lastSeq).toBe(13)
    })

    it.each(['', 'a/b', '../up', 'dot.ted', 'spa ce', 'héllo', 'x'.repeat(129)])('rejects the id %j and stores nothing', async (id) => {
      const { sessions } = await start(await space())
      for (const call of [sessions.create(id), sessions.open(id), sessions.openOrCreate(id)]) {
        const error = await failure(call)
        expect(error.code).toBe('INVALID_ID')
        expect(error.message).toContain(JSON.stringify(id))
      }
      expect(await sessions.list()).toEqual([])
    })

    it('declares one of the durability modes', async () => {
      const store = await start(await space())
      expect(DURABILITY_MODES).toContain(store.sessions.durability)
    })

    it('makes every queued append durable when the store is disposed', async () => {
      const storage = await space()
      const first = await start(storage)
      const session = await first.sessions.create('busy')
      for (let turn = 1; turn <= 60; turn++) contractTurn(session, turn)
      await first.dispose()
      const second = await start(storage)
      expect((await second.sessions.open('busy')).lastSeq).toBe(60 * 13)
    })

    it('reloads any sequence of events exactly as appended (property)', async () => {
      const storage = await space()
      let n = 0
      const payload = fc.dictionary(fc.string({ maxLength: 6 }), fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null), fc.double({ noNaN: true, noDefaultInfinity: true })), { maxKeys: 4 })
      await fc.assert(fc.asyncProperty(fc.array(fc.tuple(fc.constantFrom('a/x', 'b/y', 'c/z'), payload), { maxLength: 12 }), async (steps) => {
        const id = `p${++n}`
        const store = await start(storage)
        const session = await store.sessions.create(id)
        for (const [type, data] of steps) session.append(type, data)
        await store.dispose()
        const reader = await start(storage)
        if (steps.length === 0) {
          // nothing appended, nothing stored
          expect((await failure(reader.sessions.open(id))).code).toBe('NOT_FOUND')
        } else {
          expect(bytes(await reader.sessions.open(id))).toBe(bytes(session))
        }
        await reader.dispose()
      }), { numRuns: harness.propertyRuns ?? 30 })
    })
  })
}
