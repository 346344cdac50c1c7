import { describe, expect, it } from 'vitest'
import { refusedTogether } from '../src/wire-types.ts'

describe('the wire-type check', () => {
  it('names the deprecated retention beside prompt_cache_options as a pair OpenAI refuses', () => {
    expect(refusedTogether({ prompt_cache_retention: '24h', prompt_cache_options: { mode: 'explicit' } })).toEqual(['prompt_cache_retention + prompt_cache_options'])
    expect(refusedTogether({ prompt_cache_retention: '24h', prompt_cache_key: 'k' })).toEqual([])
    expect(refusedTogether({ prompt_cache_options: { mode: 'explicit' }, messages: [{ content: [{ prompt_cache_breakpoint: { mode: 'explicit' } }] }] })).toEqual([])
  })
})
