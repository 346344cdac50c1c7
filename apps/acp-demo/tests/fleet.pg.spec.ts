import { hostname } from 'node:os'
import { methods } from '@agentclientprotocol/sdk'
import { storedEvents, throwawaySchema } from 'dsh-session-postgres/testing'
import { afterEach, describe, expect, inject, it, onTestFinished } from 'vitest'
import { appFolder, appYaml, checkBalanced, drive, messageText, openSession, prompt, rejection, until, type Driven } from './harness.ts'

// Two real dsh-acp-demo processes on one throwaway PostgreSQL schema, each driven by the ACP SDK's client.
const URL_ENV = 'DSH_TEST_ACP_PG_URL'
const RELEASE = '_dsh/release_session'
const RELEASED = '_dsh/session_released'

const running: Driven[] = []
afterEach(async () => {
  for (const driven of running.splice(0)) if (driven.child.exitCode === null) await driven.stop()
})

// each process answers from this script in order; its second answer takes 3 s: a turn in flight long enough
// to ask for a release during it
const SCRIPT = { responses: [{ text: 'fast' }, { text: 'slow answer', delayMs: 3000 }, ...Array.from({ length: 8 }, () => ({ text: 'fast' }))] }

function pgYaml(schema: string): string {
  return appYaml(['sessionStore: external', 'sessionListPageSize: 3', 'model: slow'], [
    '- id: scripted-slow',
    '  name: dsh-llm-scripted',
    '  config: { models: [slow], script: ./script.json }',
  ].join('\n')) + [
    '- id: sessions',
    '  name: dsh-session-postgres',
    `  config: { urlEnv: ${URL_ENV}, schema: ${schema} }`,
  ].join('\n') + '\n'
}

function start(file: string): Driven {
  const driven = drive([file], { env: { [URL_ENV]: inject('pgUrl'), DSH_LOG_LEVEL: 'warn' } })
  running.push(driven)
  return driven
}

async function fleetApp() {
  const { schema, drop } = throwawaySchema(inject('pgUrl'))
  onTestFinished(drop)
  const { dir, file } = await appFolder(pgYaml(schema), { 'script.json': JSON.stringify(SCRIPT) })
  return { schema, dir, file }
}

type Listed = { sessionId: string; title?: string; _meta?: { dsh?: { holder?: { host: string; pid: number; since: string; self: boolean }; lastActivity: string | null } } }

async function listAll(driven: Driven): Promise<Listed[]> {
  const all: Listed[] = []
  let cursor: string | undefined
  do {
    const page = await driven.connection.agent.request(methods.agent.session.list, cursor ? { cursor } : {})
    all.push(...page.sessions as Listed[])
    cursor = page.nextCursor ?? undefined
  } while (cursor)
  return all
}

const release = (driven: Driven, params: Record<string, unknown>) => driven.connection.agent.request(RELEASE, params)

describe('a fleet of two ACP processes on one PostgreSQL', { timeout: 120_000 }, () => {
  it('each lists every session of the database, with the holder of each, while both hold theirs; BUSY names the holder', async () => {
    const { file } = await fleetApp()
    const a = start(file)
    const b = start(file)
    const [a1, a2] = [await openSession(a), await (async () => { const { sessionId } = await a.connection.agent.request(methods.agent.session.new, { cwd: '/tmp', mcpServers: [] }); return sessionId })()]
    await prompt(a, a1, 'first of A')
    const b1 = await openSession(b)
    await prompt(b, b1, 'first of B')

    const fromB = await listAll(b)
    expect(fromB.map((s) => s.sessionId).sort()).toEqual([a1, a2, b1].sort())
    const byId = Object.fromEntries(fromB.map((s) => [s.sessionId, s]))
    expect(byId[a1]!._meta!.dsh!.holder).toMatchObject({ host: hostname(), pid: a.child.pid, self: false })
    expect(byId[a2]!._meta!.dsh!.holder).toMatchObject({ pid: a.child.pid })
    expect(byId[b1]!._meta!.dsh!.holder).toMatchObject({ pid: b.child.pid, self: true })
    expect(byId[a1]!.title).toBe('first of A')
    expect(byId[a1]!._meta!.dsh!.lastActivity).toMatch(/^\d{4}-/)
    expect((await listAll(a)).map((s) => s.sessionId).sort()).toEqual([a1, a2, b1].sort())

    const busy = await rejection(b.connection.agent.request(methods.agent.session.load, { sessionId: a1, cwd: '/', mcpServers: [] }))
    expect(busy).toMatchObject({ code: -32600, data: { code: 'BUSY', sessionId: a1, holder: { host: hostname(), pid: a.child.pid } } })
    expect(busy.message).toMatch(new RegExp(`is busy: another process is writing it: process ${hostname()}:${a.child.pid} holds it since \\S+ and last wrote \\d+ s ago`))
    const resumed = await rejection(b.connection.agent.request(methods.agent.session.resume, { sessionId: a1, cwd: '/', mcpServers: [] }))
    expect(resumed).toMatchObject({ data: { code: 'BUSY', holder: { pid: a.child.pid } } })

    // once A is gone, its sessions are listed without a holder
    expect(await a.stop()).toBe(0)
    const after = Object.fromEntries((await listAll(b)).map((s) => [s.sessionId, s]))
    expect(after[a1]!._meta!.dsh!.holder).toBeUndefined()
    expect(after[b1]!._meta!.dsh!.holder).toMatchObject({ pid: b.child.pid })
  })

  it('hands a session over at a turn boundary: refused while a turn runs past the bound, granted after it; the holder tells its client', async () => {
    const { schema, file } = await fleetApp()
    const a = start(file)
    const b = start(file)
    const sessionId = await openSession(a)
    await openSession(b)
    await prompt(a, sessionId, 'hello')

    // a turn in flight (a 3 s model answer): a release bounded at 300 ms is refused, the session kept and the turn unharmed
    const turn = prompt(a, sessionId, 'take your time')
    await until(async () => (await storedEvents(inject('pgUrl'), schema, sessionId)).some((event) => event.type === 'step/start' && event.data.turn === 2) || undefined, 'turn 2 under way')
    const refused = await rejection(release(b, { sessionId, waitMs: 300 }))
    expect(refused).toMatchObject({ code: -32600, data: { code: 'KEPT', sessionId } })
    expect(refused.message).toMatch(/keeps session .*: a prompt turn of the session is still running after 300 ms; it is released only at a turn boundary/)
    // asked again with room for the turn to end: granted once it has
    const granted = await release(b, { sessionId, waitMs: 10_000, holder: { host: hostname(), pid: a.child.pid } })
    expect(await turn).toMatchObject({ stopReason: 'end_turn' })
    expect(granted).toMatchObject({ released: true, sessionId, holder: { host: hostname(), pid: a.child.pid } })
    // the holder told its own client, naming the process the session went to
    await until(() => a.extensions.find((n) => n.method === RELEASED), 'the released notification')
    expect(a.extensions.filter((n) => n.method === RELEASED)).toEqual([{ method: RELEASED, params: { sessionId, to: { host: hostname(), pid: b.child.pid } } }])

    // A's client no longer has the session; B takes it and goes on
    expect(await rejection(prompt(a, sessionId, 'still mine?'))).toMatchObject({ data: { code: 'UNKNOWN_SESSION' } })
    await b.connection.agent.request(methods.agent.session.load, { sessionId, cwd: '/', mcpServers: [] })
    const before = b.updates.length
    expect(await prompt(b, sessionId, 'mine now')).toMatchObject({ stopReason: 'end_turn' })
    expect(messageText(b.updates.slice(before), sessionId)).toBe('fast')
    await b.stop()
    await a.stop()
    const log = await storedEvents(inject('pgUrl'), schema, sessionId)
    checkBalanced(log)
    expect(log.filter((event) => event.type === 'user/message').map((event) => event.data.text)).toEqual(['hello', 'take your time', 'mine now'])
  })

  it('refuses bad release requests and a forged cursor with one clear error each, and loses nothing', async () => {
    const { file } = await fleetApp()
    const a = start(file)
    const b = start(file)
    const held = await openSession(a)
    await prompt(a, held, 'kept')
    const free = await openSession(b)
    await b.connection.agent.request(methods.agent.session.close, { sessionId: free })

    const notUuid = await rejection(release(b, { sessionId: 'not-a-uuid' }))
    expect(notUuid).toMatchObject({ code: -32602, data: { code: 'INVALID_PARAMS' } })
    expect(notUuid.message).toMatch(/^_dsh\/release_session: sessionId "not-a-uuid"; expected \{ sessionId: "<uuid>"/)
    const nobody = await rejection(release(b, { sessionId: free }))
    expect(nobody).toMatchObject({ code: -32002, data: { code: 'NOT_HELD', sessionId: free } })
    expect(nobody.message).toBe(`_dsh/release_session: session "${free}" is not held by any live process: there is nothing to release (session/load takes it)`)
    const ghost = await rejection(release(b, { sessionId: held, holder: { host: 'ghost', pid: 1 } }))
    expect(ghost).toMatchObject({ data: { code: 'NOT_HELD' } })
    expect(ghost.message).toBe(`_dsh/release_session: process ghost:1 does not hold session "${held}": its holder is ${hostname()}:${a.child.pid}`)
    const own = await rejection(release(a, { sessionId: held }))
    expect(own.message).toMatch(/is held by this process .*close it instead/)

    const forged = await rejection(b.connection.agent.request(methods.agent.session.list, { cursor: 'eyJmbGVldCI6MX0.AAAA' }))
    expect(forged).toMatchObject({ code: -32602, data: { code: 'INVALID_PARAMS' } })
    expect(forged.message).toMatch(/^session\/list: cursor "eyJmbGVldCI6MX0.AAAA" is not one this agent gave out/)

    // nothing lost: the holder still serves its session, the free one still loads
    expect(await prompt(a, held, 'still here')).toMatchObject({ stopReason: 'end_turn' })
    await b.connection.agent.request(methods.agent.session.load, { sessionId: free, cwd: '/', mcpServers: [] })

    // between turns, a release is granted at once, and the holder's client is told
    expect(await release(b, { sessionId: held, waitMs: 0 })).toMatchObject({ released: true, sessionId: held, holder: { pid: a.child.pid } })
    await until(() => a.extensions.find((n) => n.method === RELEASED), 'the released notification')
    await b.connection.agent.request(methods.agent.session.load, { sessionId: held, cwd: '/', mcpServers: [] })
    const replayed = b.updates.filter((n) => n.sessionId === held && n.update.sessionUpdate === 'user_message_chunk')
    expect(replayed.map((n) => (n.update as { content: { text: string } }).content.text)).toEqual(['kept', 'still here'])
  })
})
