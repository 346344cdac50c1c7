import { adapterContract, loopbackHarness } from 'dsh-llm-testing'
import AnthropicProvider from '../src/index.ts'
import { reply, sendError, sendEvents, wireUsage } from './wire-frames.ts'
import { fakeKey } from './setup.ts'

adapterContract('dsh-llm-anthropic', loopbackHarness({
  plugin: AnthropicProvider,
  key: fakeKey,
  config: (server, apiKeyEnv, model) => ({ baseURL: server.origin, apiKeyEnv, models: [model] }),
  respond(res, next, callId) {
    if (next.error) return sendError(res, 500, 'api_error', next.error)
    const usage = next.usage ? wireUsage(next.usage) : undefined
    sendEvents(res, reply({
      text: next.text ?? '',
      calls: (next.toolCalls ?? []).map((call) => ({ id: `toolu_${callId()}`, name: call.name, input: JSON.stringify(call.arguments) })),
      ...usage && { start: { ...usage, output_tokens: 1 }, end: { output_tokens: usage.output_tokens } },
    }))
  },
}))
