import type { Context } from 'cordis'
import { describe, expect, it } from 'vitest'
import { SystemPromptError, scopedContext } from '../../src/index.ts'
import { contextScope } from '../../src/scoped-context.ts'
import { renderPrompt } from '../../src/bytes.ts'
import { names, setup, tool } from '../setup.ts'

/** A plugin written against the published service: it registers on the scoped context it is handed. */
function scopedPlugin(scope: string) {
  return {
    name: 'scoped-extras',
    inject: ['systemPrompt'],
    apply(ctx: Context) {
      const own = scopedContext(ctx, scope)
      own.systemPrompt.section({ name: 'only', order: 5, text: 'Only {{who}}.' })
      own.systemPrompt.variable('who', () => scope)
      own.systemPrompt.context({ name: 'where', order: 0, text: `in ${scope}` })
      own.systemPrompt.tools(() => ({ schemas: [tool(`${scope}_tool`)] }))
    },
  }
}

describe('a scoped Cordis context (published: agent.ctx.systemPrompt…)', () => {
  it('puts sections, variables, contexts and tools into its scope; the same calls on a plain context stay global', async () => {
    const ctx = await setup({ includeHarnessIdentity: false })
    ctx.systemPrompt.section({ name: 'base', order: 1, text: 'Base.' })
    const fiber = await ctx.plugin(scopedPlugin('s1'))
    const s1 = await ctx.systemPrompt.assemble({ scope: 's1' })
    expect(renderPrompt(s1)).toBe('Base.\n\nOnly s1.')
    expect(s1.contexts).toEqual([{ name: 'where', text: 'in s1' }])
    expect(names(s1.tools)).toEqual(['s1_tool'])
    for (const other of [await ctx.systemPrompt.assemble(), await ctx.systemPrompt.assemble({ scope: 's2' })]) {
      expect(renderPrompt(other)).toBe('Base.')
      expect(other.contexts).toEqual([])
      expect(other.tools).toEqual([])
    }
    await fiber.dispose()
    expect(renderPrompt(await ctx.systemPrompt.assemble({ scope: 's1' }))).toBe('Base.')
  })

  it('shares the layer of scope(key): a name taken there is refused here', async () => {
    const ctx = await setup()
    ctx.systemPrompt.scope('s1').section({ name: 'note', order: 5, text: 'One.' })
    expect(() => scopedContext(ctx, 's1').systemPrompt.section({ name: 'note', order: 5, text: 'Two.' }))
      .toThrow(/section "note" is already registered in scope "s1"/)
  })

  it('suppresses runtime context for its scope alone', async () => {
    const ctx = await setup()
    ctx.systemPrompt.context({ name: 'date', order: 0, text: 'today' })
    scopedContext(ctx, 'quiet').systemPrompt.suppressRuntimeContext()
    expect((await ctx.systemPrompt.assemble({ scope: 'quiet' })).contexts).toEqual([])
    expect((await ctx.systemPrompt.assemble()).contexts).toHaveLength(1)
  })

  it('hands its system-prompt/assemble listeners only the assemblies of its scope, inside the global ones', async () => {
    const ctx = await setup()
    const calls: string[] = []
    scopedContext(ctx, 's1').on('system-prompt/assemble', async (assembly, context, next) => {
      calls.push(`scoped ${context.scope}`)
      assembly.sections.push({ name: 'extra', text: 'Only in s1.' })
      return next()
    })
    ctx.on('system-prompt/assemble', async (_assembly, context, next) => { calls.push(`global ${context.scope ?? '-'}`); return next() })
    expect(renderPrompt(await ctx.systemPrompt.assemble({ scope: 's1' }))).toMatch(/Only in s1\.$/)
    expect(renderPrompt(await ctx.systemPrompt.assemble({ scope: 's2' }))).not.toMatch(/Only in s1/)
    expect(renderPrompt(await ctx.systemPrompt.assemble())).not.toMatch(/Only in s1/)
    expect(calls).toEqual(['global s1', 'scoped s1', 'global s2', 'global -'])
  })

  it('leaves with the fiber of the context it extends, listeners included', async () => {
    const ctx = await setup()
    const fiber = await ctx.plugin({
      name: 'listener',
      inject: ['systemPrompt'],
      apply(ctx: Context) {
        scopedContext(ctx, 's1').on('system-prompt/assemble', async (assembly, _context, next) => {
          assembly.sections.push({ name: 'extra', text: 'Listener here.' })
          return next()
        })
      },
    })
    expect(renderPrompt(await ctx.systemPrompt.assemble({ scope: 's1' }))).toMatch(/Listener here\.$/)
    await fiber.dispose()
    expect(renderPrompt(await ctx.systemPrompt.assemble({ scope: 's1' }))).not.toMatch(/Listener here/)
    // A plugin that injected the service cannot even reach it once disposed: Cordis says so.
    expect(() => scopedContext(fiber.ctx, 's1').systemPrompt).toThrow(/cannot get required service "systemPrompt" in inactive context/)
  })

  it('refuses a registration through a disposed context that can still reach the service, naming the scope', async () => {
    const ctx = await setup()
    // As the agent loop does for each agent: a child plugin, without inject of its own, of one that injects the service.
    let child: { ctx: Context; dispose(): Promise<void> } | undefined
    await ctx.plugin({ name: 'host', inject: ['systemPrompt'], apply(host: Context) { child = host.plugin({ name: 'child', apply() {} }) } })
    const own = scopedContext(child!.ctx, 's1')
    const prompt = own.systemPrompt
    await child!.dispose()
    expect(() => prompt.variable('late', () => 'x'))
      .toThrow(expect.objectContaining({ code: 'INACTIVE_SCOPE', message: expect.stringContaining('systemPrompt.variable(late) in scope "s1" came through a disposed context') }))
    expect(() => own.systemPrompt.section({ name: 'late', order: 1, text: 'x' })).toThrow(expect.objectContaining({ code: 'INACTIVE_SCOPE' }))
  })

  it.each([[''], [5], [null]])('refuses the scope %j', async (scope) => {
    const ctx = await setup()
    expect(() => scopedContext(ctx, scope as any)).toThrow(SystemPromptError)
    expect(() => scopedContext(ctx, scope as any)).toThrow(/a scoped context needs a non-empty string scope/)
  })

  it('reports its scope, and none for a plain context', async () => {
    const ctx = await setup()
    expect(contextScope(scopedContext(ctx, 'a'))).toBe('a')
    expect(contextScope(ctx)).toBeUndefined()
  })
})
