import AgentSpine from 'dsh-harness'
import { compactionCases } from 'dsh-llm-testing'
import { expect } from 'vitest'
import OpenAIProvider from '../src/index.ts'
import { sendError, sendStream, textReply } from './wire-frames.ts'
import { fakeKey } from './setup.ts'

compactionCases({
  name: 'Chat Completions',
  spine: AgentSpine,
  adapter: OpenAIProvider,
  key: fakeKey,
  config: (server, apiKeyEnv, model) => ({ baseURL: server.origin, apiKeyEnv, models: [model] }),
  reply: (res, text, inputTokens) => sendStream(res, textReply(text, { prompt_tokens: inputTokens, completion_tokens: 5 })),
  fail: (res, status, message) => sendError(res, status, message),
  // Chat Completions bodies go on with `],"tools":` after the last message.
  throughMessages: (raw) => raw.slice(0, raw.indexOf('],"tools":')),
  afterCompaction(after, compaction) {
    // The system prompt is the first message here, unchanged.
    expect(after.messages[0]).toEqual(compaction.messages[0])
    expect(after.messages[0].role).toBe('system')
  },
})
