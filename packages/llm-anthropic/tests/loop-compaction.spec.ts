import AgentSpine from 'dsh-harness'
import { compactionCases } from 'dsh-llm-testing'
import { expect } from 'vitest'
import AnthropicProvider from '../src/index.ts'
import { reply, sendError, sendEvents } from './wire-frames.ts'
import { fakeKey } from './setup.ts'

compactionCases({
  name: 'Messages',
  spine: AgentSpine,
  adapter: AnthropicProvider,
  key: fakeKey,
  // addition-only, the deepseek profile's default on this route: grep arrives as a deferred declaration and a tool_addition block
  config: (server, apiKeyEnv, model) => ({ baseURL: server.origin, apiKeyEnv, models: [{ ...model, provider: 'deepseek', toolUpdate: 'addition-only' }] }),
  reply: (res, text, inputTokens) => sendEvents(res, reply({
    text, start: { input_tokens: inputTokens, output_tokens: 5, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
  })),
  fail: (res, status, message) => sendError(res, status, 'api_error', message),
  // Messages bodies end with `],"stream":true}` after the last message.
  throughMessages: (raw) => raw.slice(0, raw.lastIndexOf('],"stream":true}')),
  afterCompaction(after, compaction) {
    // The system prompt has its own field; grep stays deferred and its announcement is kept before the summary.
    expect(after.system).toBe(compaction.system)
    expect(after.tools.find((tool: any) => tool.name === 'grep')).toMatchObject({ defer_loading: true })
    expect(after.messages[0]).toEqual({ role: 'system', content: [expect.objectContaining({ type: 'tool_addition', tool: expect.objectContaining({ name: 'grep' }) })] })
  },
})
