import { Context } from 'cordis'
import LlmRuntime, { type GenerateOptions, type StreamEvent, type ToolDefinition } from 'dsh-llm'
import { randomBytes } from 'node:crypto'
import AnthropicProvider, { type AnthropicConfig } from '../src/index.ts'
import { startLoopback, type Handler, type Loopback } from './loopback.ts'

/** A fresh env var name per test, holding a fresh fake key; removed by `cleanup()`. */
export function fakeKey() {
  const name = `DSH_TEST_ANTHROPIC_KEY_${randomBytes(4).toString('hex').toUpperCase()}`
  const value = `sk-ant-test-${randomBytes(12).toString('hex')}`
  process.env[name] = value
  return { name, value, cleanup: () => delete process.env[name] }
}

/** A context with `llm` and the Anthropic plugin pointed at a loopback server answering with `handler`. */
export async function setup(handler: Handler, config: Partial<AnthropicConfig> = {}) {
  const server = await startLoopback(handler)
  const key = fakeKey()
  const ctx = new Context()
  await ctx.plugin(LlmRuntime)
  const fiber = await ctx.plugin(AnthropicProvider, {
    baseURL: server.origin,
    apiKeyEnv: key.name,
    models: ['test-model'],
    ...config,
  } as AnthropicConfig)
  return {
    ctx,
    fiber,
    server,
    key,
    async teardown() {
      await fiber.dispose()
      await server.close()
      key.cleanup()
    },
  }
}

export type Setup = Awaited<ReturnType<typeof setup>>
export type { Loopback }

export function tool(name: string, description = `the ${name} tool`): ToolDefinition {
  return { name, description, parameters: { type: 'object', properties: { input: { type: 'string' } } } }
}

export function request(overrides: Partial<GenerateOptions> = {}): GenerateOptions {
  return {
    model: 'test-model',
    system: 'You are a test.',
    tools: [tool('read'), tool('write')],
    messages: [{ role: 'user', text: 'hello' }],
    ...overrides,
  }
}

/** Streams through the runtime (guard included) and returns every event. */
export async function drain(ctx: Context, options: GenerateOptions): Promise<StreamEvent[]> {
  const events: StreamEvent[] = []
  for await (const event of ctx.llm.stream(options)) events.push(event)
  return events
}

/** The error a stream ends with (fails the test when it does not fail). */
export async function failure(ctx: Context, options: GenerateOptions): Promise<Error> {
  try {
    await drain(ctx, options)
  } catch (error) {
    return error as Error
  }
  throw new Error('expected the stream to fail')
}

export const text = (events: StreamEvent[]) => events.map((event) => event.type === 'text' ? event.delta : '').join('')
