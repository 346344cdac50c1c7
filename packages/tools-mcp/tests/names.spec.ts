import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { modelToolName } from '../src/names.ts'
import { TOOL_NAME } from 'dsh-tools'

describe('model-facing tool names', () => {
  it('are mcp__<server>__<tool> when both are legal', () => {
    expect(modelToolName('filesystem', 'read_text_file')).toBe('mcp__filesystem__read_text_file')
  })

  it('turn every character a provider rejects into _', () => {
    expect(modelToolName('my.server', 'get weather!')).toBe('mcp__my_server__get_weather_')
    expect(modelToolName('s', 'ünïcode/тул')).toBe('mcp__s___n_code____')
  })

  it('keep a 64-character name whole', () => {
    const tool = 'x'.repeat(64 - 'mcp__s__'.length)
    expect(modelToolName('s', tool)).toBe(`mcp__s__${tool}`)
  })

  it('shorten a longer name to 64 characters with a stable hash suffix', () => {
    const tool = 'describe_the_current_state_of_every_open_pull_request_in_detail'
    const name = modelToolName('github', tool)
    expect(name).toHaveLength(64)
    // pinned: the suffix is the first 8 hex digits of SHA-256("github\0" + tool), the same on every run and machine
    expect(name).toBe('mcp__github__describe_the_current_state_of_every_open_p_2be8d894')
    expect(modelToolName('github', `${tool}s`)).not.toBe(name)
  })

  it('always match the provider pattern and depend only on the two names', () => {
    fc.assert(fc.property(fc.stringMatching(/^[a-z0-9-]{1,20}$/), fc.string({ minLength: 1, maxLength: 120 }), (server, tool) => {
      const name = modelToolName(server, tool)
      expect(name).toMatch(TOOL_NAME)
      expect(name.startsWith(`mcp__${server}__`) || name.length === 64).toBe(true)
      expect(modelToolName(server, tool)).toBe(name)
    }))
  })
})
