import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import { afterAll, describe, expect, it } from 'vitest'
import { boot, type BootedApp } from 'dsh-app-boot'
import HarnessPlugin, { HarnessError } from '../src/index.ts'
import { loadWithSessions } from '../src/testing/index.ts'

const load = (config: Record<string, unknown> = {}) => loadWithSessions(HarnessPlugin, config)

async function refusal(promise: Promise<unknown>): Promise<HarnessError> {
  const error = await promise.then(() => undefined, (error: unknown) => error)
  expect(error).toBeInstanceOf(HarnessError)
  return error as HarnessError
}

describe('ctx.harness', () => {
  const apps: BootedApp[] = []
  afterAll(() => Promise.all(apps.map((app) => app.dispose())))

  it('opens a new agent, resumes a stored session as the agent of that id, and continues the latest', async () => {
    const ctx = await load()
    const first = await ctx.harness.openAgent()
    await first.prompt('one')
    await ctx.harness.closeAgent(first.id)
    const second = await ctx.harness.openAgent({ kind: 'new' })
    await second.prompt('two')
    await ctx.harness.closeAgent(second.id)
    expect((await ctx.harness.storedSessionIds()).sort()).toEqual([first.id, second.id].sort())

    const resumed = await ctx.harness.openAgent({ kind: 'resume', id: first.id })
    expect(resumed.id).toBe(first.id)
    expect(resumed.session.events().some((event) => event.type === 'turn/start')).toBe(true)
    await ctx.harness.closeAgent(resumed.id)
    const summaries = await ctx.harness.sessionSummaries()
    const continued = await ctx.harness.openAgent({ kind: 'continue' })
    expect(continued.id).toBe(summaries[0]!.id)
  })

  it('logs the working folder of a new session under the event type given, flushed before the agent is returned', async () => {
    const ctx = await load()
    const agent = await ctx.harness.openAgent({ kind: 'new' }, { folder: { cwd: '/srv/project', event: 'door/created' } })
    expect(agent.session.events().map((event) => [event.type, event.data])).toEqual([['door/created', { cwd: '/srv/project' }]])
    const [summary] = await ctx.harness.sessionSummaries(['door/created'])
    expect(summary!.kept?.['door/created']?.data).toEqual({ cwd: '/srv/project' })
  })

  it('refuses an unknown id, continuing with nothing stored, and a session another writer holds', async () => {
    const ctx = await load()
    expect(await refusal(ctx.harness.openAgent({ kind: 'continue' }))).toMatchObject({ code: 'NO_SESSION', details: { stored: 0 } })
    const agent = await ctx.harness.openAgent()
    await agent.prompt('hi')
    const unknown = await refusal(ctx.harness.openAgent({ kind: 'resume', id: 'nope' }))
    expect(unknown).toMatchObject({ code: 'UNKNOWN_SESSION', details: { sessionId: 'nope', stored: 1 } })
    // the loop's own refusal (a CodedError with code BUSY) is recognised by its class, and keeps its words
    const busy = await refusal(ctx.harness.openAgent({ kind: 'resume', id: agent.id }))
    expect(busy).toMatchObject({ code: 'BUSY', details: { sessionId: agent.id } })
    expect(busy.message).toBe(`agent "${agent.id}" already exists`)
  })

  it('tells each cold-cache listener about its own agent only, and reports tool sources', async () => {
    const ctx = await load()
    const [a, b] = [await ctx.harness.openAgent(), await ctx.harness.openAgent()]
    const heard: string[] = []
    const stop = ctx.harness.onColdCache((agent) => heard.push(`only-a:${agent.id}`), a)
    ctx.harness.onColdCache((agent) => heard.push(`any:${agent.id}`))
    const info = { model: 'scripted-echo', idleMs: 2, ttlMs: 1 }
    ctx.emit('prompt-cache/cold', b, info as never)
    ctx.emit('prompt-cache/cold', a, info as never)
    stop()
    ctx.emit('prompt-cache/cold', a, info as never)
    expect(heard).toEqual([`any:${b.id}`, `only-a:${a.id}`, `any:${a.id}`, `any:${a.id}`])

    const statuses: string[] = []
    ctx.harness.onSourceStatus((status) => statuses.push(`${status.source} ${status.event}`))
    ctx.tools.reportSource({ source: 'mcp:one', prefix: 'mcp__one__', event: 'failed', message: 'one failed' })
    ctx.tools.reportSource({ source: 'mcp:two', prefix: 'mcp__two__', event: 'failed', message: 'two failed', agentId: a.id })
    expect(statuses).toEqual(['mcp:one failed', 'mcp:two failed'])
    expect(ctx.harness.downSources().map((status) => status.source)).toEqual(['mcp:one'])
    expect(ctx.harness.downSources(a.id).map((status) => status.source).sort()).toEqual(['mcp:one', 'mcp:two'])
    expect(ctx.harness.models()).toEqual(['scripted-echo'])
  })

  it('is ready at once in a bare Context, and with the app file\'s startup barrier once booted', async () => {
    const bare = new Context()
    await bare.plugin(HarnessPlugin, { persist: false })
    await expect(bare.harness.ready()).resolves.toBeUndefined()

    const folder = await mkdtemp(join(tmpdir(), 'dsh-harness-ready-'))
    const file = join(folder, 'app.yml')
    await writeFile(file, `- { id: core, name: dsh-harness, config: { persistenceRoot: ${JSON.stringify(join(folder, 'sessions'))} } }\n`)
    const app = await boot({ file, resolve: (name) => import.meta.resolve(name), logLevel: 'silent' })
    apps.push(app)
    expect(await app.ctx.harness.ready()).toBe(app.readiness)
  })
})
