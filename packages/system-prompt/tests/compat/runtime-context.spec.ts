import { Context } from 'cordis'
import { describe, expect, it } from 'vitest'
import SystemPrompt, { SystemPromptError, type PromptAssembly } from '../../src/index.ts'
import { joinContextSections, renderContextSections, renderContextSnapshot, renderPrompt } from '../../src/render.ts'
import { setup } from '../setup.ts'

const contextPlugin = (name: string, text: string, order = 0) => ({
  name,
  inject: ['systemPrompt'],
  apply(ctx: Context) {
    ctx.systemPrompt.context({ name, order, text })
  },
})

describe('runtime contexts (published: context(), PromptAssembly.contexts)', () => {
  it('are assembled apart from the sections, by order then name, with their texts unrendered', async () => {
    const ctx = await setup({ persona: 'P' })
    ctx.systemPrompt.context({ name: 'git', order: 20, text: 'branch {{branch}}' })
    ctx.systemPrompt.context({ name: 'date', order: 10, text: () => 'today' })
    ctx.systemPrompt.context({ name: 'cwd', order: 10, text: '' })
    ctx.systemPrompt.variable('branch', () => 'main')
    const assembly = await ctx.systemPrompt.assemble()
    expect(assembly.contexts).toEqual([{ name: 'cwd', text: '' }, { name: 'date', text: 'today' }, { name: 'git', text: 'branch {{branch}}' }])
    expect(renderPrompt(assembly)).not.toContain('today')
    expect(renderContextSections(assembly)).toEqual([{ name: 'date', text: 'today' }, { name: 'git', text: 'branch main' }])
  })

  it('return a disposer and leave with the plugin that registered them', async () => {
    const ctx = await setup()
    const dispose = ctx.systemPrompt.context({ name: 'a', order: 0, text: 'A' })
    const fiber = await ctx.plugin(contextPlugin('b', 'B'))
    expect((await ctx.systemPrompt.assemble()).contexts.map((c) => c.name)).toEqual(['a', 'b'])
    dispose()
    await fiber.dispose()
    expect((await ctx.systemPrompt.assemble()).contexts).toEqual([])
  })

  it('refuse a second context of one name and a malformed one, naming it', async () => {
    const ctx = await setup()
    ctx.systemPrompt.context({ name: 'a', order: 0, text: 'A' })
    expect(() => ctx.systemPrompt.context({ name: 'a', order: 1, text: 'B' })).toThrow(/context "a" is already registered/)
    expect(() => ctx.systemPrompt.context({ name: 'b', order: Infinity, text: 'B' })).toThrow(/context "b" needs a finite order/)
    expect(() => ctx.systemPrompt.context({ name: 'c', order: 0, text: 5 as any })).toThrow(SystemPromptError)
    ctx.systemPrompt.context({ name: 'd', order: 0, text: () => 7 as any })
    await expect(ctx.systemPrompt.assemble()).rejects.toThrow(/context "d" produced 7 instead of a string/)
  })

  it('are dropped while any suppressor lives; suppressors are disposed independently', async () => {
    const ctx = await setup()
    ctx.systemPrompt.context({ name: 'a', order: 0, text: 'A' })
    const first = ctx.systemPrompt.suppressRuntimeContext()
    const second = ctx.systemPrompt.suppressRuntimeContext()
    expect((await ctx.systemPrompt.assemble()).contexts).toEqual([])
    first()
    expect((await ctx.systemPrompt.assemble()).contexts).toEqual([])
    second()
    expect((await ctx.systemPrompt.assemble()).contexts).toEqual([{ name: 'a', text: 'A' }])
  })

  it('stay empty after the waterfall while suppressed, whatever a listener adds', async () => {
    const ctx = await setup()
    ctx.systemPrompt.suppressRuntimeContext()
    ctx.on('system-prompt/assemble', async (assembly, _context, next) => {
      assembly.contexts.push({ name: 'sneaky', text: 'x' })
      return next()
    })
    expect((await ctx.systemPrompt.assemble()).contexts).toEqual([])
  })
})

describe('includeRuntimeContext', () => {
  it('defaults to true; false drops every context, scoped ones too', async () => {
    expect((await setup()).systemPrompt.config.includeRuntimeContext).toBe(true)
    const ctx = await setup({ includeRuntimeContext: false })
    ctx.systemPrompt.context({ name: 'a', order: 0, text: 'A' })
    ctx.systemPrompt.scope('s1').context({ name: 'b', order: 0, text: 'B' })
    expect((await ctx.systemPrompt.assemble({ scope: 's1' })).contexts).toEqual([])
  })

  it.each(['yes', 1, 'false'])('rejects %j when the plugin loads, naming the key', async (value) => {
    const ctx = new Context()
    await expect(ctx.plugin(SystemPrompt, { includeRuntimeContext: value } as any)).rejects.toThrow(/includeRuntimeContext/)
  })
})

describe('renderContextSnapshot / renderContextSections / joinContextSections', () => {
  const assembly = (contexts: PromptAssembly['contexts'], variables: PromptAssembly['variables'] = {}) =>
    ({ sections: [], contexts, tools: [], variables })

  it('give "" when no context renders text', () => {
    expect(renderContextSnapshot(assembly([]))).toBe('')
    expect(renderContextSnapshot(assembly([{ name: 'a', text: '{{x}}' }], { x: '' }))).toBe('')
    expect(joinContextSections([])).toBe('')
  })

  it('join the rendered sections under one heading, in order, and the snapshot is their join', () => {
    const input = assembly([{ name: 'a', text: 'A {{x}}' }, { name: 'b', text: 'B' }], { x: '1' })
    const sections = renderContextSections(input)
    expect(sections).toEqual([{ name: 'a', text: 'A 1' }, { name: 'b', text: 'B' }])
    const snapshot = renderContextSnapshot(input)
    expect(snapshot).toBe(joinContextSections(sections))
    expect(snapshot.endsWith('A 1\n\nB')).toBe(true)
    expect(snapshot.split('\n\n')).toHaveLength(3)
  })

  it('interpolate strictly, naming the context', () => {
    expect(() => renderContextSnapshot(assembly([{ name: 'git', text: '{{nope}}' }]))).toThrow(/context "git"/)
  })
})
