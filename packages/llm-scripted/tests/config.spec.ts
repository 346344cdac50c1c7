import { describe, expect, it } from 'vitest'
import { failure, setup } from './setup.ts'

describe('scripted plugin config', () => {
  it('serves scripted-echo with tool updates off by default', async () => {
    const { ctx } = await setup({})
    expect(ctx.llm.models()).toEqual(['scripted-echo'])
    expect(ctx.llm.toolUpdateMode('scripted-echo')).toBe('none')
    expect(ctx.llm.resolve('scripted-echo').provider).toBe('scripted')
  })

  it('declares a context window per model entry, 128000 estimated tokens by default', async () => {
    const { ctx } = await setup({ models: ['scripted-echo', { id: 'tiny', contextWindow: 500 }] })
    expect(ctx.llm.contextWindow('scripted-echo')).toBe(128_000)
    expect(ctx.llm.contextWindow('tiny')).toBe(500)
  })

  it.each(['none', 'append', 'addition-only', 'in-history'] as const)('declares toolUpdate %s', async (toolUpdate) => {
    const { ctx } = await setup({ toolUpdate })
    expect(ctx.llm.toolUpdateMode('scripted-echo')).toBe(toolUpdate)
  })

  it.each([
    [{ models: 'scripted-echo' }, /models expected array/],
    [{ models: [3] }, /models\[0\] expected string/],
    [{ toolUpdate: 'sometimes' }, /toolUpdate expected "none" \| "append" \| "addition-only" \| "in-history" but got "sometimes"/],
    [{ script: 42 }, /script expected string but got 42/],
    [{ models: [{ id: 'a', contextWindow: 'big' }] }, /models\[0\]/],
  ])('rejects the wrongly typed config %j', async (config, field) => {
    const error = await failure(setup(config))
    expect(error.message).toMatch(field)
  })

  it.each([
    [{ models: [] }, 'models must list at least one model id, e.g. ["scripted-echo"]'],
    [{ models: ['a', ' '] }, 'models contains an empty model id: ["a"," "]'],
    [{ models: ['a', 'b', 'a'] }, 'models lists "a" twice: ["a","b","a"]'],
    [{ script: '  ' }, 'script must be a file path, got an empty string'],
    [{ models: ['a', { id: 'a' }] }, 'models lists "a" twice: ["a",{"id":"a"}]'],
  ])('rejects the config %j', async (config, message) => {
    const error = await failure(setup(config))
    expect(error.code).toBe('INVALID_CONFIG')
    expect(error.message).toBe(message)
  })

  it('refuses to serve a model another adapter already serves', async () => {
    const { ctx } = await setup({})
    const { default: ScriptedLlm } = await import('dsh-llm-scripted')
    const error = await failure(ctx.plugin(ScriptedLlm, {}))
    expect(error.code).toBe('DUPLICATE_MODEL')
    expect(error.message).toContain('"scripted-echo"')
  })
})
