import type { Context } from 'cordis'
import { describe, expect, it } from 'vitest'
import { SystemPromptError } from '../../src/index.ts'
import { PERSONA_SECTION } from '../../src/service.ts'
import { renderPrompt } from '../../src/bytes.ts'
import { names, setup, tool } from '../setup.ts'

describe('scopes (published: registrations in a session or agent scope)', () => {
  it('shadow global sections, contexts and variables by name, only in assemblies of that scope', async () => {
    const ctx = await setup({ persona: 'Global persona.', includeHarnessIdentity: false })
    ctx.systemPrompt.context({ name: 'where', order: 0, text: 'global place' })
    ctx.systemPrompt.variable('who', () => 'everyone')
    ctx.systemPrompt.section({ name: 'greet', order: 1, text: 'Hello {{who}}.' })
    const s1 = ctx.systemPrompt.scope('s1')
    s1.section({ name: PERSONA_SECTION, order: 0, text: 'Session persona.' })
    s1.context({ name: 'where', order: 0, text: 'session place' })
    s1.variable('who', () => 'session one')
    const scoped = await ctx.systemPrompt.assemble({ scope: 's1' })
    expect(renderPrompt(scoped)).toBe('Session persona.\n\nHello session one.')
    expect(scoped.contexts).toEqual([{ name: 'where', text: 'session place' }])
    for (const other of [await ctx.systemPrompt.assemble(), await ctx.systemPrompt.assemble({ scope: 's2' })]) {
      expect(renderPrompt(other)).toBe('Global persona.\n\nHello everyone.')
      expect(other.contexts).toEqual([{ name: 'where', text: 'global place' }])
    }
  })

  it('join tool providers: the scope sees global tools and its own, in canonical order', async () => {
    const ctx = await setup()
    ctx.systemPrompt.tools(() => ({ schemas: [tool('read'), tool('write')] }))
    ctx.systemPrompt.scope('s1').tools(() => ({ schemas: [tool('mcp__fs__list')] }))
    expect(names((await ctx.systemPrompt.assemble({ scope: 's1' })).tools)).toEqual(['mcp__fs__list', 'read', 'write'])
    expect(names((await ctx.systemPrompt.assemble({ scope: 's2' })).tools)).toEqual(['read', 'write'])
    expect([...ctx.systemPrompt.toolOwners({ scope: 's1' }).keys()]).toEqual(['mcp__fs__list', 'read', 'write'])
  })

  it('fail loud on a tool name both a global and a scoped provider contribute', async () => {
    const ctx = await setup()
    ctx.systemPrompt.tools(() => ({ schemas: [tool('read')] }))
    ctx.systemPrompt.scope('s1').tools(() => ({ schemas: [tool('read')] }))
    await expect(ctx.systemPrompt.assemble({ scope: 's1' })).rejects.toThrow(/tool "read" is contributed twice/)
  })

  it('filter the waterfall: a scoped listener sees only its scope, inside the global listeners', async () => {
    const ctx = await setup()
    const calls: string[] = []
    ctx.on('system-prompt/assemble', async (_assembly, context, next) => {
      calls.push(`global ${context.scope ?? '-'}`)
      return next()
    })
    ctx.systemPrompt.scope('s1').onAssemble(async (assembly, context, next) => {
      calls.push(`scoped ${context.scope}`)
      assembly.sections.push({ name: 'extra', text: 'Only in s1.' })
      return next()
    })
    expect(renderPrompt(await ctx.systemPrompt.assemble({ scope: 's1' }))).toMatch(/Only in s1\.$/)
    expect(renderPrompt(await ctx.systemPrompt.assemble({ scope: 's2' }))).not.toMatch(/Only in s1/)
    expect(calls).toEqual(['global s1', 'scoped s1', 'global s2'])
  })

  it('announce their changes to every change listener, with the scope', async () => {
    const ctx = await setup()
    const changes: unknown[] = []
    ctx.on('system-prompt/change', (change) => { changes.push(change) })
    const dispose = ctx.systemPrompt.scope('s1').variable('who', () => 'me')
    dispose()
    expect(changes).toEqual([
      { kind: 'variable', action: 'add', name: 'who', scope: 's1' },
      { kind: 'variable', action: 'remove', name: 'who', scope: 's1' },
    ])
  })

  it('suppress runtime context for one scope alone', async () => {
    const ctx = await setup()
    ctx.systemPrompt.context({ name: 'date', order: 0, text: 'today' })
    ctx.systemPrompt.scope('quiet').suppressRuntimeContext()
    expect((await ctx.systemPrompt.assemble({ scope: 'quiet' })).contexts).toEqual([])
    expect((await ctx.systemPrompt.assemble({ scope: 'loud' })).contexts).toHaveLength(1)
  })

  it('leave with the plugin that registered them, and a duplicate within one scope is refused', async () => {
    const ctx = await setup()
    const note = (ctx: Context) => ctx.systemPrompt.scope('s1').section({ name: 'note', order: 5, text: 'Scoped note.' })
    const fiber = await ctx.plugin({ name: 'session-extras', inject: ['systemPrompt'], apply: note })
    expect(() => ctx.systemPrompt.scope('s1').section({ name: 'note', order: 6, text: 'again' })).toThrow(/section "note" is already registered in scope "s1"/)
    expect(renderPrompt(await ctx.systemPrompt.assemble({ scope: 's1' }))).toMatch(/Scoped note\.$/)
    await fiber.dispose()
    expect(renderPrompt(await ctx.systemPrompt.assemble({ scope: 's1' }))).not.toMatch(/Scoped note/)
  })

  it.each([[''], [5], [null]])('refuse the scope %j, in a registration and in an assembly', async (scope) => {
    const ctx = await setup()
    expect(() => ctx.systemPrompt.scope(scope as any)).toThrow(SystemPromptError)
    await expect(ctx.systemPrompt.assemble({ scope: scope as any })).rejects.toThrow(/scope is a non-empty string/)
  })

  it('pass the signal and the extra fields of the assemble context to providers', async () => {
    const ctx = await setup()
    const signal = new AbortController().signal
    let seen: unknown
    ctx.systemPrompt.variable('x', (context) => { seen = context; return 'x' })
    await ctx.systemPrompt.assemble({ scope: 's', signal, model: 'm', agentId: 'a' })
    expect(seen).toMatchObject({ scope: 's', signal, model: 'm', agentId: 'a' })
  })
})
