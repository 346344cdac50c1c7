import { describe, expect, it } from 'vitest'
import { names, setup, tool } from '../setup.ts'

const registrations = {
  section: (sp: any) => sp.section({ name: 'extra', order: 1, text: 'Extra.' }),
  context: (sp: any) => sp.context({ name: 'extra', order: 1, text: 'Extra.' }),
  variable: (sp: any) => sp.variable('extra', () => 'Extra.'),
  tools: (sp: any) => sp.tools(() => ({ schemas: [tool('extra')] })),
}

describe('a registration whose system-prompt/change listener throws', () => {
  it.each(Object.entries(registrations))('is rolled back and the error reaches the caller: %s', async (_kind, register) => {
    const ctx = await setup()
    const before = await ctx.systemPrompt.assemble()
    const refusal = new Error('change listener refuses')
    const stop = ctx.on('system-prompt/change', (change) => { if (change.action === 'add') throw refusal })
    expect(() => register(ctx.systemPrompt)).toThrow(refusal)
    stop()
    const after = await ctx.systemPrompt.assemble()
    expect(after).toEqual(before)
    // nothing half-registered: the same registration now succeeds
    expect(() => register(ctx.systemPrompt)).not.toThrow()
    const again = await ctx.systemPrompt.assemble()
    expect([again.sections, again.contexts, Object.keys(again.variables), names(again.tools)].flat().length).toBeGreaterThan(
      [after.sections, after.contexts, Object.keys(after.variables), names(after.tools)].flat().length,
    )
  })

  it.each(Object.entries(registrations))('in a scope leaves that scope as it was: %s', async (_kind, register) => {
    const ctx = await setup()
    const before = await ctx.systemPrompt.assemble({ scope: 's' })
    const stop = ctx.on('system-prompt/change', () => { throw new Error('no') })
    expect(() => register(ctx.systemPrompt.scope('s'))).toThrow('no')
    stop()
    expect(await ctx.systemPrompt.assemble({ scope: 's' })).toEqual(before)
  })
})
