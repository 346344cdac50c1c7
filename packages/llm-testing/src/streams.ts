import type { ToolSchema } from 'dsh-core'
import type { Context } from 'cordis'
import { expect } from 'vitest'
import { LlmError } from 'dsh-llm'
import type { GenerateOptions, StreamEvent } from 'dsh-llm'
import 'dsh-llm'

/** A tool whose one parameter is the string `input`. */
export function sampleTool(name: string, description = `the ${name} tool`): ToolSchema {
  return { name, description, parameters: { type: 'object', properties: { input: { type: 'string' } } } }
}

/** A request to `test-model` with a system prompt, the `read` and `write` sample tools and one user message. */
export function sampleRequest(overrides: Partial<GenerateOptions> = {}): GenerateOptions {
  return {
    model: 'test-model',
    system: 'You are a test.',
    tools: [sampleTool('read'), sampleTool('write')],
    messages: [{ role: 'user', text: 'hello' }],
    ...overrides,
  }
}

/** Streams through the runtime (guard included) and returns every event. */
export async function drainStream(ctx: Context, options: GenerateOptions): Promise<StreamEvent[]> {
  const events: StreamEvent[] = []
  for await (const event of ctx.llm.stream(options)) events.push(event)
  return events
}

/** The error a stream ends with (fails the test when it does not fail). */
export async function streamError(ctx: Context, options: GenerateOptions): Promise<Error> {
  try {
    await drainStream(ctx, options)
  } catch (error) {
    return error as Error
  }
  throw new Error('expected the stream to fail')
}

/** The text deltas of `events`, joined. */
export function joinText(events: readonly StreamEvent[]): string {
  return events.map((event) => event.type === 'text' ? event.delta : '').join('')
}

/** The adapter's own error behind the runtime's `ADAPTER_ERROR`/`CANCELLED` wrapper. */
export function adapterCause<E extends Error>(error: Error): E {
  expect(error).toBeInstanceOf(LlmError)
  return (error as LlmError).cause as E
}

/** Everything an error exposes as text: message, stack, causes, own properties. */
export function exposedText(error: unknown): string {
  const parts: string[] = []
  let current: unknown = error
  for (let depth = 0; current && depth < 6; depth++) {
    if (current instanceof Error) parts.push(current.message, current.stack ?? '', JSON.stringify(current))
    else parts.push(String(current))
    current = current instanceof Error ? current.cause : undefined
  }
  return parts.join('\n')
}
