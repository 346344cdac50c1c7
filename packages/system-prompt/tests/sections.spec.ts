import { Context } from 'cordis'
import { describe, expect, it } from 'vitest'
import { IDENTITY_SECTION, PERSONA_SECTION, SystemPromptError, renderPrompt, type SystemPromptChange } from '../src/index.ts'
import { setup } from './setup.ts'

const sectionNames = (assembly: { sections: { name: string }[] }) => assembly.sections.map((s) => s.name)

async function withSections(ctx: Context, register: (ctx: Context) => void) {
  return ctx.plugin({ name: 'sections', inject: ['systemPrompt'], apply: register })
}

describe('sections', () => {
  it('sort by order, ties by code-unit name, never by registration order', async () => {
    const ctx = await setup({ includeHarnessIdentity: false })
    await withSections(ctx, (ctx) => {
      ctx.systemPrompt.section({ name: 'b', order: 10, text: 'B' })
      ctx.systemPrompt.section({ name: 'Z', order: 10, text: 'Z' })
      ctx.systemPrompt.section({ name: 'a', order: 10, text: 'A' })
      ctx.systemPrompt.section({ name: 'early', order: -5, text: 'E' })
    })
    expect(sectionNames(await ctx.systemPrompt.assemble())).toEqual(['early', 'Z', 'a', 'b'])
  })

  it('renders identity first, then persona, joined by a blank line', async () => {
    const ctx = await setup({ persona: 'You review code.' })
    await withSections(ctx, (ctx) => { ctx.systemPrompt.section({ name: 'z', order: 5, text: 'Tail.' }) })
    const assembly = await ctx.systemPrompt.assemble()
    expect(sectionNames(assembly)).toEqual([IDENTITY_SECTION, PERSONA_SECTION, 'z'])
    expect(renderPrompt(assembly).split('\n\n').slice(1)).toEqual(['You review code.', 'Tail.'])
  })

  it('drops an empty persona and can leave out the identity', async () => {
    const ctx = await setup({ includeHarnessIdentity: false })
    expect((await ctx.systemPrompt.assemble()).sections).toEqual([])
  })

  it('calls text functions with the assemble context', async () => {
    const ctx = await setup({ includeHarnessIdentity: false })
    await withSections(ctx, (ctx) => { ctx.systemPrompt.section({ name: 'm', order: 1, text: (c) => `model ${c.model}` }) })
    expect((await ctx.systemPrompt.assemble({ model: 'm7' })).sections).toEqual([{ name: 'm', text: 'model m7' }])
  })

  it.each([
    [{ name: 'x', order: Number.NaN, text: '' }, /finite order/],
    [{ name: 'x', order: Infinity, text: '' }, /finite order/],
    [{ name: 'x', order: '1', text: '' }, /finite order/],
    [{ name: '', order: 1, text: '' }, /non-empty string/],
    [{ name: 'x', order: 1, text: 4 }, /text as a string or a function/],
  ])('rejects the section %j', async (definition, message) => {
    const ctx = await setup()
    expect(() => ctx.systemPrompt.section(definition as any)).toThrow(message)
  })

  it('rejects a duplicate name', async () => {
    const ctx = await setup()
    ctx.systemPrompt.section({ name: 'x', order: 1, text: 'a' })
    const error = (() => { try { ctx.systemPrompt.section({ name: 'x', order: 2, text: 'b' }) } catch (e) { return e } })()
    expect(error).toBeInstanceOf(SystemPromptError)
    expect((error as SystemPromptError).code).toBe('DUPLICATE_SECTION')
  })

  it('disappears with its plugin and frees the name', async () => {
    const ctx = await setup({ includeHarnessIdentity: false })
    const fiber = await withSections(ctx, (ctx) => { ctx.systemPrompt.section({ name: 'x', order: 1, text: 'a' }) })
    await fiber.dispose()
    expect((await ctx.systemPrompt.assemble()).sections).toEqual([])
    expect(() => ctx.systemPrompt.section({ name: 'x', order: 1, text: 'again' })).not.toThrow()
  })

  it('the returned disposer removes it', async () => {
    const ctx = await setup({ includeHarnessIdentity: false })
    const dispose = ctx.systemPrompt.section({ name: 'x', order: 1, text: 'a' })
    dispose()
    expect((await ctx.systemPrompt.assemble()).sections).toEqual([])
  })

  it('emits system-prompt/change on registration and disposal', async () => {
    const ctx = await setup()
    const changes: SystemPromptChange[] = []
    ctx.on('system-prompt/change', (change) => { changes.push(change) })
    const fiber = await withSections(ctx, (ctx) => {
      ctx.systemPrompt.section({ name: 's', order: 1, text: 'a' })
      ctx.systemPrompt.variable('v', () => 'x')
      ctx.systemPrompt.tools(() => ({ schemas: [] }))
    })
    await fiber.dispose()
    expect(changes.map((c) => `${c.action} ${c.kind} ${c.name}`)).toEqual([
      'add section s', 'add variable v', 'add tools sections',
      'remove tools sections', 'remove variable v', 'remove section s',
    ])
  })
})

describe('variables', () => {
  it.each(['Model', '1x', 'a-b', '', 'with space'])('rejects the name %j', async (name) => {
    const ctx = await setup()
    expect(() => ctx.systemPrompt.variable(name, () => 'x')).toThrow(/must match/)
  })

  it('rejects a duplicate and a non-function provider', async () => {
    const ctx = await setup()
    ctx.systemPrompt.variable('cwd', () => '/')
    expect(() => ctx.systemPrompt.variable('cwd', () => '/tmp')).toThrow(/already registered/)
    expect(() => ctx.systemPrompt.variable('other', 'x' as any)).toThrow(/provider function/)
  })

  it('resolves values per assembly and rejects a non-string value', async () => {
    const ctx = await setup()
    ctx.systemPrompt.variable('model', (c) => c.model)
    expect((await ctx.systemPrompt.assemble({ model: 'm' })).variables.model).toBe('m')
    expect((await ctx.systemPrompt.assemble()).variables.model).toBeUndefined()
    ctx.systemPrompt.variable('bad', () => 3 as any)
    await expect(ctx.systemPrompt.assemble()).rejects.toThrow(/"bad" produced 3/)
  })
})
