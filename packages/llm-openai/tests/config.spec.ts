import { configRefusal, loadWithLlm, withApiKey } from 'dsh-llm-testing'
import { describe, expect, it } from 'vitest'
import OpenAIProvider from '../src/index.ts'
import { createOpenAIAdapter } from '../src/adapter.ts'

// The keys every HTTP adapter shares are checked by the contract in http-contract.spec.ts; these are this wire's own.
const load = (config: Record<string, unknown>) => withApiKey('OPENAI_API_KEY', () => loadWithLlm(OpenAIProvider, config))

describe('plugin', () => {
  it('serves its models through ctx.llm as provider openai, with the endpoint defaults filled in', async () => {
    const { ctx, fiber } = await load({ models: ['gpt-x', 'gpt-y'] })
    expect(ctx.llm.models()).toEqual(['gpt-x', 'gpt-y'])
    expect(ctx.llm.resolve('gpt-x').provider).toBe('openai')
    expect(fiber.config).toMatchObject({ baseURL: 'https://api.openai.com/v1', apiKeyEnv: 'OPENAI_API_KEY', toolUpdateBetaHeader: 'anthropic-beta' })
  })
})

describe('toolUpdateBetaHeader', () => {
  it.each([
    ['with a space', 'tool changes', /toolUpdateBetaHeader must be an HTTP header name .*got "tool changes"/],
    ['not a string', 3, /toolUpdateBetaHeader/],
  ])('is refused %s, naming the key', async (_, value, message) => {
    expect(await configRefusal(OpenAIProvider, { models: ['m'], toolUpdateBetaHeader: value })).toMatch(message)
  })

  it('is refused without Cordis too', () => {
    expect(() => createOpenAIAdapter({ models: ['m'], toolUpdateBetaHeader: 'a:b' }))
      .toThrow('dsh-llm-openai: toolUpdateBetaHeader must be an HTTP header name (letters, digits, - and token signs), got "a:b"')
  })
})

describe('tool-update modes', () => {
  it('declares addition-only for deepseek-flash and append for other entries unless configured', async () => {
    const { ctx } = await load({ provider: 'deepseek', models: ['deepseek-flash', 'gpt-4o', { id: 'local', toolUpdate: 'in-history' }, { id: 'deepseek-flash-x' }] })
    expect(ctx.llm.toolUpdateMode('deepseek-flash')).toBe('addition-only')
    expect(ctx.llm.toolUpdateMode('gpt-4o')).toBe('append')
    expect(ctx.llm.toolUpdateMode('local')).toBe('in-history')
    expect(ctx.llm.toolUpdateMode('deepseek-flash-x')).toBe('append')
    const configured = createOpenAIAdapter({ models: [{ id: 'deepseek-flash', toolUpdate: 'none' }] }).toolUpdate as (model: string) => string
    expect(configured('deepseek-flash')).toBe('none')
    // on OpenAI's own host deepseek-flash is just an id: the openai profile takes no update blocks
    const onOpenAI = createOpenAIAdapter({ models: ['deepseek-flash'] }).toolUpdate as (model: string) => string
    expect(onOpenAI('deepseek-flash')).toBe('append')
  })
})
