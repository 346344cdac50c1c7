import { Context } from 'cordis'
import LlmRuntime, { type GenerateOptions, type LlmAdapter, type StreamEvent } from 'dsh-llm'

export async function setup() {
  const ctx = new Context()
  await ctx.plugin(LlmRuntime)
  return ctx
}

/** An adapter that replays `events` (or runs `body`) and records the options it was given. */
export function fakeAdapter(
  provider: string,
  models: string[],
  body: StreamEvent[] | ((options: GenerateOptions) => AsyncIterable<StreamEvent>),
  extra: Partial<LlmAdapter> = {},
) {
  const seen: GenerateOptions[] = []
  const adapter: LlmAdapter = {
    provider,
    models,
    ...extra,
    stream(options) {
      seen.push(options)
      if (typeof body === 'function') return body(options)
      return (async function* () { yield* body })()
    },
  }
  return { adapter, seen }
}

export function options(model: string, extra: Partial<GenerateOptions> = {}): GenerateOptions {
  return { model, system: 'system', tools: [], messages: [{ role: 'user', text: 'hi' }], ...extra }
}

export async function drain(stream: AsyncIterable<StreamEvent>) {
  const events: StreamEvent[] = []
  for await (const event of stream) events.push(event)
  return events
}

export async function failure(promise: PromiseLike<unknown>): Promise<any> {
  return Promise.resolve(promise).then(() => { throw new Error('expected a rejection') }, (error: unknown) => error)
}
