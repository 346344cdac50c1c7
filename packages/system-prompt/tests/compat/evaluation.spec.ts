import { describe, expect, it } from 'vitest'
import { names, setup, tool } from '../setup.ts'

describe('what one assembly evaluates', () => {
  it('lists tool providers before asking them: one added during an assembly joins the next one', async () => {
    const ctx = await setup()
    let added = false
    ctx.systemPrompt.tools(() => {
      if (!added) {
        added = true
        ctx.systemPrompt.tools(() => ({ schemas: [tool('late')] }))
      }
      return { schemas: [tool('early')] }
    })
    expect(names((await ctx.systemPrompt.assemble()).tools)).toEqual(['early'])
    expect(names((await ctx.systemPrompt.assemble()).tools)).toEqual(['early', 'late'])
  })

  it('reads variables live: one registered while another is evaluated takes part in the same assembly', async () => {
    const ctx = await setup()
    ctx.systemPrompt.section({ name: 'uses', order: 1, text: '{{first}} {{second}}' })
    let added = false
    ctx.systemPrompt.variable('first', () => {
      if (!added) {
        added = true
        ctx.systemPrompt.variable('second', () => 'two')
      }
      return 'one'
    })
    const assembly = await ctx.systemPrompt.assemble()
    expect(assembly.variables).toEqual({ first: 'one', second: 'two' })
  })
})
