import { describe, expect, it } from 'vitest'
import { IDENTITY_TEXT, SystemPromptError } from '../../src/index.ts'
import { PERSONA_SECTION } from '../../src/service.ts'
import { renderPrompt } from '../../src/bytes.ts'
import { setup } from '../setup.ts'

describe('complete sections (published: the sole prompt section after the waterfall)', () => {
  it('replace every other section, and listeners cannot add to or change them', async () => {
    const ctx = await setup({ persona: 'Persona.' })
    ctx.systemPrompt.section({ name: 'tools:guide', order: 100, text: 'Guide.' })
    ctx.systemPrompt.section({ name: 'whole', order: 50, text: 'Everything in {{model}}.', complete: true })
    ctx.systemPrompt.variable('model', (context) => context.model)
    let seen: string[] = []
    ctx.on('system-prompt/assemble', async (assembly, _context, next) => {
      seen = assembly.sections.map((section) => section.name)
      assembly.sections.push({ name: 'late', text: 'Late.' })
      assembly.sections.find((section) => section.name === 'whole')!.text = 'changed'
      return next()
    })
    const assembly = await ctx.systemPrompt.assemble({ model: 'm1' })
    // the waterfall saw every section; the result keeps the complete one alone
    expect(seen).toEqual(['harness:identity', PERSONA_SECTION, 'whole', 'tools:guide'])
    expect(assembly.sections).toEqual([{ name: 'whole', text: 'Everything in {{model}}.' }])
    expect(renderPrompt(assembly)).toBe('Everything in m1.')
  })

  it('keep tools, contexts and variables of the assembly', async () => {
    const ctx = await setup()
    ctx.systemPrompt.section({ name: 'whole', order: 0, text: 'W', complete: true })
    ctx.systemPrompt.context({ name: 'c', order: 0, text: 'C' })
    ctx.systemPrompt.variable('v', () => 'V')
    ctx.systemPrompt.tools(() => ({ schemas: [{ name: 't', description: 'T', parameters: {} }] }))
    const assembly = await ctx.systemPrompt.assemble()
    expect(assembly.contexts).toEqual([{ name: 'c', text: 'C' }])
    expect(assembly.variables.v).toBe('V')
    expect(assembly.tools.map((tool) => tool.name)).toEqual(['t'])
  })

  it('reject the assembly when two are effective, naming both; disposing one heals it', async () => {
    const ctx = await setup()
    ctx.systemPrompt.section({ name: 'a', order: 0, text: 'A', complete: true })
    const dispose = ctx.systemPrompt.section({ name: 'b', order: 1, text: 'B', complete: true })
    const error = await ctx.systemPrompt.assemble().catch((caught) => caught)
    expect(error).toBeInstanceOf(SystemPromptError)
    expect(error.code).toBe('MULTIPLE_COMPLETE_SECTIONS')
    expect(error.message).toMatch(/"a" and "b"/)
    dispose()
    expect(renderPrompt(await ctx.systemPrompt.assemble())).toBe('A')
  })

  it('count per scope: a scoped complete section shadowing the global one of its name is one', async () => {
    const ctx = await setup()
    ctx.systemPrompt.section({ name: 'whole', order: 0, text: 'global', complete: true })
    ctx.systemPrompt.scope('s').section({ name: 'whole', order: 0, text: 'scoped', complete: true })
    expect(renderPrompt(await ctx.systemPrompt.assemble({ scope: 's' }))).toBe('scoped')
    expect(renderPrompt(await ctx.systemPrompt.assemble())).toBe('global')
  })

  it('are refused with a non-boolean flag', async () => {
    const ctx = await setup()
    expect(() => ctx.systemPrompt.section({ name: 'x', order: 0, text: 'X', complete: 'yes' as any })).toThrow(/complete must be true or false, got "yes"/)
    expect(() => ctx.systemPrompt.section({ name: 'y', order: 0, text: 'Y', interpolate: 0 as any })).toThrow(/interpolate must be true or false, got 0/)
  })
})

describe('interpolate: false (what "complete" meant here before)', () => {
  it('renders the text verbatim and keeps the identity section byte for byte', async () => {
    const ctx = await setup({ persona: 'P' })
    ctx.systemPrompt.section({ name: 'raw', order: 5, text: 'keep {{this}}', interpolate: false })
    const assembly = await ctx.systemPrompt.assemble()
    expect(renderPrompt(assembly)).toBe(`${IDENTITY_TEXT}\n\nP\n\nkeep {{this}}`)
    expect(assembly.sections[0]).toEqual({ name: 'harness:identity', text: IDENTITY_TEXT, interpolate: false })
  })
})
