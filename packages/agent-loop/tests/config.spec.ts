import { Context } from 'cordis'
import { describe, expect, it } from 'vitest'
import LlmRuntime from 'dsh-llm'
import SessionStore from 'dsh-session'
import SystemPrompt from 'dsh-system-prompt'
import ToolRuntime from 'dsh-tools'
import AgentLoop from '../src/index.ts'
import { setup, tempRoot } from './setup.ts'

async function load(config: unknown) {
  const ctx = new Context()
  await ctx.plugin(SystemPrompt, {} as any)
  await ctx.plugin(ToolRuntime, {} as any)
  await ctx.plugin(SessionStore, { persistenceRoot: await tempRoot() } as any)
  await ctx.plugin(LlmRuntime)
  return ctx.plugin(AgentLoop, config as any)
}

describe('AgentLoop config', () => {
  it.each([
    [{ maxSteps: 0 }, /maxSteps/],
    [{ maxSteps: 'ten' }, /maxSteps/],
    [{ toolConcurrency: -1 }, /toolConcurrency/],
    [{ model: '' }, /model/],
    [{ model: 5 }, /model/],
    [{ cwd: 7 }, /cwd/],
    [{ compactAt: 0 }, /compactAt/],
    [{ compactAt: 1.5 }, /compactAt/],
    [{ compactAt: 'most' }, /compactAt/],
    [{ compactionTimeoutMs: 0 }, /compactionTimeoutMs/],
    // Node fires a longer timer after 1 ms
    [{ compactionTimeoutMs: 2 ** 31 }, /compactionTimeoutMs.*2147483647.*2147483648/],
  ])('rejects %j', async (config, message) => {
    await expect(load(config)).rejects.toThrow(message)
  })

  it('gives each agent the schema\'s defaults for the keys the config leaves out', async () => {
    const fiber = await load({ maxSteps: 3 })
    const agent = await fiber.ctx.agentLoop.createAgent({ model: 'other' })
    expect(agent.settings).toEqual({
      model: 'other', maxSteps: 3, toolConcurrency: 4, compactAt: 0.8, compactionTimeoutMs: 120_000, cwd: process.cwd(), maxChildren: 4, scope: agent.id,
    })
  })

  it('registers the model and cwd prompt variables', async () => {
    const { ctx } = await setup({ loop: { cwd: '/work/here' } })
    ctx.systemPrompt.section({ name: 'where', order: 5, text: 'Model {{model}} in {{cwd}}.' })
    const agent = await ctx.agentLoop.createAgent()
    await agent.prompt('hi')
    expect(agent.session.requestHeader()!.data.header.system).toContain('Model scripted-echo in /work/here.')
  })
})
