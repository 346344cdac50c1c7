import { describe, expect, it } from 'vitest'
import { IDENTITY_TEXT } from '../../src/index.ts'
import { PERSONA_ORDER, PERSONA_SECTION } from '../../src/service.ts'
import { renderPrompt, renderSections } from '../../src/bytes.ts'
import { setup } from '../setup.ts'

describe('the persona slot', () => {
  it('is in the section list at order 0 even when the persona is empty, and renders nothing then', async () => {
    const ctx = await setup()
    const inspection = await ctx.systemPrompt.inspect()
    expect(inspection.assembly.sections.map((section) => section.name)).toEqual(['harness:identity', PERSONA_SECTION])
    expect(inspection.assembly.sections[1]).toEqual({ name: PERSONA_SECTION, text: '' })
    expect(inspection.sectionOrders.get(PERSONA_SECTION)).toBe(PERSONA_ORDER)
    expect(renderPrompt(inspection.assembly)).toBe(IDENTITY_TEXT)
    expect(renderSections(inspection.assembly).map((section) => section.name)).toEqual(['harness:identity'])
  })

  it('can be shadowed by name in a scope, and a second global one is refused', async () => {
    const ctx = await setup()
    ctx.systemPrompt.scope('s').section({ name: PERSONA_SECTION, order: PERSONA_ORDER, text: 'Scoped persona.' })
    expect(renderPrompt(await ctx.systemPrompt.assemble({ scope: 's' }))).toBe(`${IDENTITY_TEXT}\n\nScoped persona.`)
    expect(() => ctx.systemPrompt.section({ name: PERSONA_SECTION, order: 0, text: 'x' })).toThrow(/already registered/)
  })
})
