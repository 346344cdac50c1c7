import Schema from 'schemastery'
import { describe, expect, it } from 'vitest'
import { forwardConfig } from 'dsh-core'

describe('forwardConfig', () => {
  const child = Schema.intersect([
    Schema.object({ persona: Schema.string() }),
    Schema.object({ toolOrder: Schema.union([Schema.array(Schema.string()), Schema.const(undefined)]) }),
  ])

  it('forwards exactly the keys the child schema declares, leaving out undefined ones', () => {
    const forwarded = forwardConfig<Record<string, unknown>>(child, { persona: 'p', toolOrder: undefined, welcome: 'hi' })
    expect(forwarded).toEqual({ persona: 'p' })
    expect('toolOrder' in forwarded).toBe(false)
    expect(forwardConfig(child, { toolOrder: ['a'], persona: '' })).toEqual({ toolOrder: ['a'], persona: '' })
  })

  it('refuses a schema that does not declare its keys', () => {
    expect(() => forwardConfig(Schema.dict(Schema.string()), {})).toThrow(/declares its keys/)
    expect(() => forwardConfig(undefined, {})).toThrow(TypeError)
  })
})
