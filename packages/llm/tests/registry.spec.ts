import type { Context } from 'cordis'
import { LlmError } from 'dsh-llm'
import { describe, expect, it } from 'vitest'
import { drain, fakeAdapter, failure, options, setup } from './setup.ts'

const done = [{ type: 'done', stopReason: 'end_turn' } as const]

describe('adapter registry', () => {
  it('resolves a registered model and lists served models sorted by code unit', async () => {
    const ctx = await setup()
    const { adapter } = fakeAdapter('b-provider', ['zeta', 'Alpha'], done)
    ctx.llm.register(adapter)
    ctx.llm.register(fakeAdapter('a-provider', ['alpha', 'beta'], done).adapter)
    expect(ctx.llm.resolve('zeta')).toBe(adapter)
    expect(ctx.llm.models()).toEqual(['Alpha', 'alpha', 'beta', 'zeta'])
  })

  it('refuses a model served by two adapters, naming the model and both providers', async () => {
    const ctx = await setup()
    ctx.llm.register(fakeAdapter('first', ['shared', 'own'], done).adapter)
    const error = (() => {
      try {
        ctx.llm.register(fakeAdapter('second', ['other', 'shared'], done).adapter)
      } catch (error) {
        return error as LlmError
      }
    })()
    expect(error).toBeInstanceOf(LlmError)
    expect(error?.code).toBe('DUPLICATE_MODEL')
    expect(error?.message).toContain('"shared"')
    expect(error?.message).toContain('"first"')
    expect(error?.message).toContain('"second"')
    // a refused adapter registers none of its models
    expect(ctx.llm.models()).toEqual(['own', 'shared'])
    expect(ctx.llm.resolve('shared').provider).toBe('first')
  })

  it('names the unknown model and lists the served ones', async () => {
    const ctx = await setup()
    ctx.llm.register(fakeAdapter('p', ['m2', 'm1'], done).adapter)
    let error: LlmError | undefined
    try {
      ctx.llm.resolve('gpt-nothing')
    } catch (caught) {
      error = caught as LlmError
    }
    expect(error?.code).toBe('UNKNOWN_MODEL')
    expect(error?.message).toBe('unknown model "gpt-nothing"; served models: m1, m2')
  })

  it('says when no model is registered at all', async () => {
    const ctx = await setup()
    expect(() => ctx.llm.resolve('x')).toThrow('served models: (none registered)')
  })

  it('drops the models when the registering plugin is disposed', async () => {
    const ctx = await setup()
    const fiber = await ctx.plugin({
      name: 'provider-plugin',
      inject: ['llm'],
      apply(child: Context) {
        child.llm.register(fakeAdapter('p', ['temporary'], done).adapter)
      },
    })
    expect(ctx.llm.models()).toEqual(['temporary'])
    await fiber.dispose()
    expect(ctx.llm.models()).toEqual([])
    expect(() => ctx.llm.resolve('temporary')).toThrow(LlmError)
    // the freed id can be served again
    ctx.llm.register(fakeAdapter('q', ['temporary'], done).adapter)
    expect(ctx.llm.resolve('temporary').provider).toBe('q')
  })

  it('resolves a route once: its window and its requests use the adapter it found', async () => {
    const ctx = await setup()
    const served = fakeAdapter('p', ['m', 'n'], done, { contextWindow: (model) => model === 'm' ? 1000 : 2000 })
    ctx.llm.register(served.adapter)
    const route = ctx.llm.route('m')
    expect(route.adapter).toBe(served.adapter)
    expect(route.contextWindow()).toBe(1000)
    await drain(route.stream(options('m')))
    // a request for another model the same adapter serves goes to it too
    await drain(route.stream(options('n')))
    expect(served.seen.map((request) => request.model)).toEqual(['m', 'n'])
    expect(() => ctx.llm.route('nothing')).toThrow('unknown model "nothing"; served models: m, n')
  })

  it('resolves a route\'s request afresh once its adapter no longer serves the model', async () => {
    const ctx = await setup()
    const first = fakeAdapter('first', ['m'], done)
    const unregister = ctx.llm.register(first.adapter)
    const route = ctx.llm.route('m')
    await unregister()
    const error = await failure(drain(route.stream(options('m'))))
    expect(error).toBeInstanceOf(LlmError)
    expect(error.code).toBe('UNKNOWN_MODEL')
    const second = fakeAdapter('second', ['m'], done)
    ctx.llm.register(second.adapter)
    await drain(route.stream(options('m')))
    expect([first.seen.length, second.seen.length]).toEqual([0, 1])
  })

  it('returns a disposer that unregisters', async () => {
    const ctx = await setup()
    const dispose = ctx.llm.register(fakeAdapter('p', ['m'], done).adapter)
    await dispose()
    expect(ctx.llm.models()).toEqual([])
  })

  it.each([
    [{ provider: '', models: ['m'] }, 'adapter provider must be a non-empty string, got ""'],
    [{ provider: 'p', models: [] }, 'adapter "p": models must be a non-empty array'],
    [{ provider: 'p', models: ['m', 'm'] }, 'model "m" is listed twice'],
    [{ provider: 'p', models: [''] }, 'model ids must be non-empty strings, got ""'],
    [{ provider: 'p', models: ['m'], toolUpdate: 'sometimes' }, 'toolUpdate "sometimes" is not a mode; valid: none, append, addition-only, in-history'],
  ])('refuses a malformed adapter %j', async (shape, message) => {
    const ctx = await setup()
    const adapter = { ...fakeAdapter('x', ['x'], done).adapter, ...shape } as any
    expect(() => ctx.llm.register(adapter)).toThrow(message)
    expect(ctx.llm.models()).toEqual([])
  })

  it('refuses an adapter without a stream function', async () => {
    const ctx = await setup()
    expect(() => ctx.llm.register({ provider: 'p', models: ['m'] } as any)).toThrow('adapter "p": stream must be a function')
  })

  it('reports the tool-update mode of a route, defaulting to none', async () => {
    const ctx = await setup()
    ctx.llm.register(fakeAdapter('plain', ['plain-model'], done).adapter)
    ctx.llm.register(fakeAdapter('fixed', ['fixed-model'], done, { toolUpdate: 'in-history' }).adapter)
    ctx.llm.register(fakeAdapter('per-model', ['pm-a', 'pm-b'], done, {
      toolUpdate: (model) => model === 'pm-a' ? 'addition-only' : 'bogus' as any,
    }).adapter)
    expect(ctx.llm.toolUpdateMode('plain-model')).toBe('none')
    expect(ctx.llm.toolUpdateMode('fixed-model')).toBe('in-history')
    expect(ctx.llm.toolUpdateMode('pm-a')).toBe('addition-only')
    const error = await failure(Promise.resolve().then(() => ctx.llm.toolUpdateMode('pm-b')))
    expect(error.code).toBe('INVALID_TOOL_UPDATE')
    expect(error.message).toContain('"bogus"')
    expect(error.message).toContain('valid: none, append, addition-only, in-history')
  })

  it('reports the context window a route declares, none when it declares none, and refuses a bad one', async () => {
    const ctx = await setup()
    ctx.llm.register(fakeAdapter('plain', ['plain-model'], done).adapter)
    ctx.llm.register(fakeAdapter('fixed', ['fixed-model'], done, { contextWindow: 4096 }).adapter)
    ctx.llm.register(fakeAdapter('per-model', ['pm-a', 'pm-b'], done, { contextWindow: (model) => model === 'pm-a' ? 1000 : 0.5 }).adapter)
    expect(ctx.llm.contextWindow('plain-model')).toBeUndefined()
    expect(ctx.llm.contextWindow('fixed-model')).toBe(4096)
    expect(ctx.llm.contextWindow('pm-a')).toBe(1000)
    expect(() => ctx.llm.contextWindow('pm-b')).toThrow('provider "per-model" declares context window 0.5 for model "pm-b"; it must be a whole number of tokens >= 1')
    expect(() => ctx.llm.register(fakeAdapter('bad', ['bad-model'], done, { contextWindow: -1 }).adapter))
      .toThrow('adapter "bad": contextWindow -1 must be a whole number of tokens >= 1 or a function of the model id')
  })
})
