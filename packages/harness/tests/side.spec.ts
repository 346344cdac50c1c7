import { describe, expect, it } from 'vitest'
import type { AgentUpdate } from 'dsh-agent-loop'
import HarnessPlugin, { HarnessError } from '../src/index.ts'
import { loadWithSessions } from '../src/testing/index.ts'

const load = () => loadWithSessions(HarnessPlugin, {})

async function refusal(promise: Promise<unknown>): Promise<HarnessError> {
  const error = await promise.then(() => undefined, (error: unknown) => error)
  expect(error).toBeInstanceOf(HarnessError)
  return error as HarnessError
}

/** A tool that runs until the test releases it, so a turn can be held open. */
function holdingTool(ctx: Awaited<ReturnType<typeof load>>) {
  let release!: () => void
  const released = new Promise<string>((resolve) => { release = () => resolve('done') })
  ctx.tools.register({ name: 'hold', description: 'Waits for the test.', parameters: { type: 'object' }, execute: () => released })
  return release
}

describe('harness.side()', () => {
  it('answers from a side child, streams its updates, and leaves the parent\'s messages as they were', async () => {
    const ctx = await load()
    const agent = await ctx.harness.openAgent()
    await agent.prompt('the main question')
    const before = agent.session.messages().toArray()
    const updates: AgentUpdate[] = []
    const answer = await ctx.harness.side(agent.id, 'a question on the side', { onUpdate: (update) => updates.push(update) })
    expect(answer).toMatchObject({ child: `${agent.id}~1`, text: 'echo: a question on the side', reason: 'done' })
    expect(updates.filter((update) => update.type === 'text').map((update) => update.delta).join('')).toBe('echo: a question on the side')
    expect(agent.session.messages().toArray()).toEqual(before)
  })

  it('refuses a question without text, an agent that is not open, and an agent running a turn, each in one line', async () => {
    const ctx = await load()
    const agent = await ctx.harness.openAgent()
    expect(await refusal(ctx.harness.side(agent.id, '  '))).toMatchObject({
      code: 'INVALID_QUESTION', message: 'a side question needs text, got "  "; ask e.g. "/side what does this function return?"',
    })
    expect(await refusal(ctx.harness.side('nope', 'hi'))).toMatchObject({
      code: 'UNKNOWN_AGENT', message: 'no open session "nope" to ask a side question of; open or resume it first', details: { sessionId: 'nope' },
    })
    const release = holdingTool(ctx)
    const turn = agent.prompt('/call hold {}')
    while (agent.status !== 'running') await new Promise((resolve) => setTimeout(resolve, 5))
    expect(await refusal(ctx.harness.side(agent.id, 'meanwhile?'))).toMatchObject({
      code: 'BUSY', message: `session "${agent.id}" is running a turn; ask the side question once it ends (it forks the conversation as it stands between turns)`,
    })
    release()
    expect((await turn).reason).toBe('done')
    // nothing was forked by the refusals
    expect(agent.session.events().filter((event) => event.type === 'fork/child')).toEqual([])
    expect((await ctx.harness.side(agent.id, 'now?')).child).toBe(`${agent.id}~1`)
  })

  it('cancels the side child with its signal; the parent is untouched and both logs are balanced', async () => {
    const ctx = await load()
    const agent = await ctx.harness.openAgent()
    const release = holdingTool(ctx)
    await agent.prompt('first')
    const controller = new AbortController()
    const asked = ctx.harness.side(agent.id, '/call hold {}', {
      signal: controller.signal,
      onUpdate: (update) => { if (update.type === 'tool-call') controller.abort() },
    })
    const answer = await asked
    release()
    expect(answer).toMatchObject({ child: `${agent.id}~1`, reason: 'cancelled' })
    const child = await ctx.sessions.open(answer.child)
    expect(child.turns().open).toBeUndefined()
    expect(child.events().findLast((event) => event.type === 'turn/end')?.data).toMatchObject({ reason: 'cancelled' })
    expect(agent.session.turns().open).toBeUndefined()
  })

  it('onChildUpdate hears each child of the agent in order, with the agent call that started it, once stored', async () => {
    const ctx = await load()
    const agent = await ctx.harness.openAgent()
    const other = await ctx.harness.openAgent()
    // the harness offers the agent tool unless the app file says agentTool: false
    if (!(await ctx.harness.tools(agent)).some((tool) => tool.name === 'agent')) ctx.agentLoop.offerAgentTool()
    const heard: string[] = []
    const stop = ctx.harness.onChildUpdate(agent.id, ({ child, call, update }) => {
      heard.push(`${child} ${call === undefined ? '-' : 'call'} ${update.type}`)
      // each update comes once the child's events before it are stored
      expect(ctx.sessions.get(child)).toBeDefined()
    })
    await other.prompt('/call agent {"instruction":"not mine","description":"another parent"}')
    const turn = await agent.prompt('/call agent {"instruction":"mine","description":"a child"}')
    expect(turn.text).toBe('tool agent returned: echo: mine')
    await ctx.harness.side(agent.id, 'aside')
    stop()
    await agent.prompt('/call agent {"instruction":"after stop","description":"unheard"}')
    const child = `${agent.id}~1`
    // text comes in several deltas: one line per run of the same kind
    expect(heard.filter((line, index) => line !== heard[index - 1])).toEqual([
      `${child} call text`, `${child} call usage`, `${child} call turn-end`,
      `${agent.id}~2 - text`, `${agent.id}~2 - usage`, `${agent.id}~2 - turn-end`,
    ])
  })
})
