import { describe, expect, it } from 'vitest'
import type { Context } from 'cordis'
import { rebuildLastRequest } from '../src/index.ts'
import { CONTEXT_CLEARED } from '../src/runtime-context.ts'
import { recordingAdapter, setup, toolPlugin } from './setup.ts'

/** A plugin that tells the model the current "git branch", read from a box the test changes. */
function branchPlugin(box: { branch: string }) {
  return {
    name: 'git-state',
    inject: ['systemPrompt'],
    apply(ctx: Context) {
      ctx.systemPrompt.context({ name: 'git', order: 10, text: () => box.branch && `Git branch: ${box.branch}, in {{cwd}}.` })
    },
  }
}

/** A new agent prompted "one" on branch `first`, then "two" on branch `second`. */
async function promptAcrossBranches(ctx: Context, first: string, second: string) {
  const box = { branch: first }
  await ctx.plugin(branchPlugin(box))
  const agent = await ctx.agentLoop.createAgent()
  await agent.prompt('one')
  box.branch = second
  await agent.prompt('two')
  return agent
}

const ofType = (events: readonly any[], type: string) => events.filter((event) => event.type === type)

describe('runtime context through the loop', () => {
  it('changes the history, never the request header bytes', async () => {
    const { adapter, calls } = recordingAdapter()
    const { ctx, dispose } = await setup({ adapter, loop: { model: 'recording', cwd: '/work/repo' } })
    await ctx.plugin(toolPlugin('tools-a', ['alpha']))
    const agent = await promptAcrossBranches(ctx, 'main', 'feature')
    await agent.prompt('three')
    const prefixes = calls.map(({ system, tools }) => JSON.stringify({ system, tools }))
    expect(new Set(prefixes).size).toBe(1)
    expect(prefixes[0]).not.toContain('Git branch')
    expect(ofType(agent.session.events(), 'request/header')).toHaveLength(1)
    // a snapshot only when it changed: turns one and two, not three
    const snapshots = ofType(agent.session.events(), 'context/snapshot')
    expect(snapshots.map((event) => event.data.sections)).toEqual([
      [{ name: 'git', text: 'Git branch: main, in /work/repo.' }],
      [{ name: 'git', text: 'Git branch: feature, in /work/repo.' }],
    ])
    const last = [...calls.at(-1)!.messages]
    expect(last.filter((message) => message.role === 'user').map((message) => message.text)).toEqual([
      'one', snapshots[0].data.text, 'two', snapshots[1].data.text, 'three',
    ])
    expect(last[1]).toEqual({ role: 'user', text: snapshots[0].data.text, source: 'runtime-context' })
    await dispose()
  })

  it('says once that the context is gone when its last provider leaves', async () => {
    const { adapter, calls } = recordingAdapter()
    const { ctx, dispose } = await setup({ adapter, loop: { model: 'recording' } })
    const fiber = await ctx.plugin(branchPlugin({ branch: 'main' }))
    const agent = await ctx.agentLoop.createAgent()
    await agent.prompt('one')
    await fiber.dispose()
    await agent.prompt('two')
    await agent.prompt('three')
    expect(ofType(agent.session.events(), 'context/snapshot').map((event) => event.data.text.startsWith('Runtime context'))).toEqual([true, true])
    expect(ofType(agent.session.events(), 'context/snapshot')[1].data).toMatchObject({ text: CONTEXT_CLEARED, sections: [] })
    expect(new Set(calls.map(({ system, tools }) => JSON.stringify({ system, tools }))).size).toBe(1)
    await dispose()
  })

  it('sends nothing while includeRuntimeContext is false or a scope suppresses it', async () => {
    const { adapter, calls } = recordingAdapter()
    const { ctx, dispose } = await setup({ adapter, loop: { model: 'recording' } })
    await ctx.plugin(branchPlugin({ branch: 'main' }))
    const quiet = await ctx.agentLoop.createAgent({ id: 'quiet' })
    const loud = await ctx.agentLoop.createAgent({ id: 'loud' })
    ctx.systemPrompt.scope('quiet').suppressRuntimeContext()
    await quiet.prompt('hi')
    await loud.prompt('hi')
    expect(ofType(quiet.session.events(), 'context/snapshot')).toEqual([])
    expect(ofType(loud.session.events(), 'context/snapshot')).toHaveLength(1)
    expect([...calls[0]!.messages]).toEqual([{ role: 'user', text: 'hi' }])
    await dispose()
  })

  it('keeps the scripted model answering the user, not the snapshot', async () => {
    const { ctx, dispose } = await setup()
    await ctx.plugin(branchPlugin({ branch: 'main' }))
    const agent = await ctx.agentLoop.createAgent()
    expect((await agent.prompt('hello')).text).toBe('echo: hello')
    await dispose()
  })

  it('resumes a session without repeating the snapshot it already holds', async () => {
    const first = await setup()
    const box = { branch: 'main' }
    await first.ctx.plugin(branchPlugin(box))
    await (await first.ctx.agentLoop.createAgent({ id: 's' })).prompt('one')
    await first.dispose()
    const second = await setup({ root: first.root })
    await second.ctx.plugin(branchPlugin(box))
    const agent = await second.ctx.agentLoop.createAgent({ id: 's' })
    await agent.prompt('two')
    expect(ofType(agent.session.events(), 'context/snapshot')).toHaveLength(1)
    await second.dispose()
  })
})

describe('runtime context and the log', () => {
  it('is sent again after a compaction summarized it away, and only then', async () => {
    const { ctx, dispose } = await setup()
    await ctx.plugin(branchPlugin({ branch: 'main' }))
    const agent = await ctx.agentLoop.createAgent()
    await agent.prompt('one')
    await agent.prompt('two')
    expect((await agent.compact()).ok).toBe(true)
    await agent.prompt('three')
    await agent.prompt('four')
    const kinds = agent.session.events().filter((event) => ['context/snapshot', 'context/compaction'].includes(event.type)).map((event) => event.type)
    expect(kinds).toEqual(['context/snapshot', 'context/compaction', 'context/snapshot'])
    await dispose()
  })

  it('lets the log alone rebuild the dispatched request, snapshot included', async () => {
    const { adapter, calls } = recordingAdapter()
    const { ctx, dispose } = await setup({ adapter, loop: { model: 'recording' } })
    const agent = await promptAcrossBranches(ctx, 'main', 'next')
    const { signal: _signal, ...sent } = calls.at(-1)! as any
    expect(JSON.stringify(rebuildLastRequest(agent.session.events()))).toBe(JSON.stringify(sent))
    await dispose()
  })
})

describe('the context/snapshot event', () => {
  it('is refused with a blank text or malformed sections', async () => {
    const { ctx, dispose } = await setup()
    const session = await ctx.sessions.openOrCreate('bad')
    expect(() => session.append('context/snapshot', { turn: 1, step: 1, text: ' ', sections: [] })).toThrow(/text/)
    expect(() => session.append('context/snapshot', { turn: 1, step: 1, text: 'x', sections: [{ name: '', text: 'a' }] as any })).toThrow(/sections\[0\]\.name/)
    await dispose()
  })
})
