import { Context } from 'cordis'
import { describe, expect, it } from 'vitest'
import SystemPrompt, { SystemPromptError, TOOL_ORDER_REST } from '../src/index.ts'
import { renderContextSnapshot, renderPrompt } from '../src/render.ts'

async function load(config: unknown) {
  const ctx = new Context()
  await ctx.plugin(SystemPrompt, config as any)
  return ctx.systemPrompt
}

describe('SystemPrompt config', () => {
  it('keeps an omitted toolOrder absent, never []', async () => {
    const service = await load({})
    expect('toolOrder' in service.config).toBe(false)
    expect(service.toolOrder).toBeUndefined()
    expect(service.config.persona).toBe('')
    expect(service.config.includeHarnessIdentity).toBe(true)
  })

  it('accepts a list with the rest entry', async () => {
    const service = await load({ toolOrder: ['b', TOOL_ORDER_REST, 'a'] })
    expect(service.toolOrder).toEqual(['b', TOOL_ORDER_REST, 'a'])
  })

  it.each([
    [[], /empty list/],
    [['a', 'b'], /must contain the rest entry "<unlisted-tools>"/],
    [[TOOL_ORDER_REST, TOOL_ORDER_REST], /lists the rest entry "<unlisted-tools>" twice/],
    [['a', TOOL_ORDER_REST, 'a'], /lists tool "a" twice/],
    [['', TOOL_ORDER_REST], /toolOrder\[0\] must be a non-empty tool name/],
  ])('rejects toolOrder %j when the plugin loads', async (toolOrder, message) => {
    await expect(load({ toolOrder })).rejects.toThrow(message)
    await expect(load({ toolOrder })).rejects.toBeInstanceOf(SystemPromptError)
  })

  it.each([
    [{ toolOrder: 'a' }, /toolOrder/],
    [{ toolOrder: [1, TOOL_ORDER_REST] }, /toolOrder/],
    [{ persona: 5 }, /persona/],
    [{ includeHarnessIdentity: 'yes' }, /includeHarnessIdentity/],
    [{ runtimeContext: ['cwd'] }, /runtimeContext/],
  ])('rejects the wrong type in %j', async (config, message) => {
    await expect(load(config)).rejects.toThrow(message)
  })

  it('runtimeContext is the runtime context deployment:context, outside the system prompt', async () => {
    const service = await load({ persona: 'Be brief.', runtimeContext: 'The working directory is {{folder}}.' })
    service.variable('folder', (context) => context.cwd)
    const inA = await service.assemble({ cwd: '/srv/a' })
    const inB = await service.assemble({ cwd: '/srv/b' })
    expect(inA.contexts).toEqual([{ name: 'deployment:context', text: 'The working directory is {{folder}}.' }])
    expect(renderContextSnapshot(inA)).toContain('The working directory is /srv/a.')
    expect(renderContextSnapshot(inB)).toContain('The working directory is /srv/b.')
    // the folder moves the context, never the prompt
    expect(renderPrompt(inA)).toBe(renderPrompt(inB))
    expect(renderPrompt(inA)).not.toContain('/srv/a')
  })

  it('registers no runtime context when runtimeContext is omitted or blank', async () => {
    expect((await (await load({})).assemble()).contexts).toEqual([])
    expect((await (await load({ runtimeContext: '  ' })).assemble()).contexts).toEqual([])
  })

  it('drops runtimeContext with includeRuntimeContext: false', async () => {
    const service = await load({ runtimeContext: 'Here.', includeRuntimeContext: false })
    expect((await service.assemble()).contexts).toEqual([])
  })

  it('checks the list shape even when constructed without the schema', () => {
    expect(() => new SystemPrompt(new Context(), { persona: '', includeHarnessIdentity: true, toolOrder: [7 as any, TOOL_ORDER_REST] }))
      .toThrow(/toolOrder\[0\] must be a non-empty tool name, got 7/)
  })
})
