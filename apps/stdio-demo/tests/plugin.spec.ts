import { Context } from 'cordis'
import { describe, expect, it } from 'vitest'
import ToolsStatic from 'dsh-tools-static'
import StdioDemoPlugin from '../src/index.ts'
import { spineConfig } from '../src/config.ts'
import { tempDir } from './setup.ts'

/** Loads the app plugin in a real Context, as the loader would, with sessions in a temp folder. */
async function load(config: Record<string, unknown>) {
  const ctx = new Context()
  await ctx.plugin(StdioDemoPlugin, { persistenceRoot: await tempDir(), ...config } as any)
  return ctx
}

describe('the app plugin', () => {
  it('keeps an omitted toolOrder absent all the way to SystemPrompt', async () => {
    const ctx = await load({ persona: 'Be brief.' })
    expect('toolOrder' in ctx.systemPrompt.config).toBe(false)
    expect(ctx.systemPrompt.toolOrder).toBeUndefined()
    expect(ctx.systemPrompt.config.persona).toBe('Be brief.')
  })

  it('forwards a configured toolOrder intact', async () => {
    const toolOrder = ['b', '<unlisted-tools>', 'a']
    const ctx = await load({ toolOrder })
    expect(ctx.systemPrompt.config.toolOrder).toEqual(toolOrder)
    expect(ctx.stdioDemo.config.toolOrder).toEqual(toolOrder)
  })

  it('never hands its own keys to the spine', () => {
    const forwarded = spineConfig({ welcome: 'hi', persona: 'p', toolOrder: undefined } as any)
    expect(forwarded).toEqual({ persona: 'p' })
    expect('toolOrder' in forwarded).toBe(false)
  })

  it('exposes its parsed config, with defaults, under ctx.stdioDemo', async () => {
    const ctx = await load({ welcome: 'Hello.', maxSteps: 3 })
    expect(ctx.stdioDemo.config).toMatchObject({ welcome: 'Hello.', maxSteps: 3, model: 'scripted-echo' })
    expect((await load({})).stdioDemo.config.welcome).toMatch(/stdio demo/)
  })

  it('answers /tools and /prompt with what the next request carries', async () => {
    const ctx = await load({ persona: 'Work in {{cwd}}.', cwd: '/srv/demo' })
    await ctx.plugin(ToolsStatic, { tools: [{ name: 'zeta', description: 'Z.' }, { name: 'alpha', description: 'A.' }] } as any)
    const agent = await ctx.stdioDemo.harness.openAgent()
    expect((await ctx.stdioDemo.harness.tools(agent)).map((tool) => tool.name)).toEqual(['agent', 'alpha', 'zeta'])
    const prompt = await ctx.stdioDemo.harness.systemPrompt(agent)
    expect(prompt).toMatch(/Work in \/srv\/demo\.$/)
    await agent.prompt('hi')
    expect(agent.lastRequest!.system).toBe(prompt)
  })

  it.each([
    [{ welcome: 5 }, /welcome/],
    [{ toolOrder: 'x' }, /toolOrder/],
    [{ toolOrder: [] }, /toolOrder is an empty list/],
    [{ persona: 5 }, /persona/],
    [{ model: '' }, /model/],
    [{ maxSteps: 0 }, /maxSteps/],
  ])('fails to load with %j', async (config, message) => {
    await expect(load(config)).rejects.toThrow(message)
  })
})
