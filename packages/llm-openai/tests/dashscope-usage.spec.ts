import { describe, expect, it } from 'vitest'
import { usageFromDashScope } from '../src/usage.ts'

// Response bodies in the shapes the providers document, as a recording would hold them.
const DASHSCOPE_NATIVE = `{
  "status_code": 200,
  "request_id": "5d1f0a8c-3b7e-9c2d-a41f-0e6b7d2c9a13",
  "output": { "choices": [{ "finish_reason": "stop", "message": { "role": "assistant", "content": "Done." } }] },
  "usage": { "input_tokens": 3019, "output_tokens": 104, "total_tokens": 3123, "prompt_tokens_details": { "cached_tokens": 2048 } }
}`

const DASHSCOPE_COMPATIBLE_EXPLICIT = `{
  "id": "chatcmpl-8f2c41d7-6a0e-9b3f-b2c5-7d10e4a9f6b8",
  "object": "chat.completion",
  "model": "qwen-plus",
  "choices": [{ "index": 0, "finish_reason": "stop", "message": { "role": "assistant", "content": "Done." } }],
  "usage": {
    "prompt_tokens": 1618,
    "completion_tokens": 37,
    "total_tokens": 1655,
    "prompt_tokens_details": {
      "cached_tokens": 0,
      "cache_creation": { "ephemeral_5m_input_tokens": 1500 },
      "cache_creation_input_tokens": 1500,
      "cache_type": "ephemeral"
    }
  }
}`

describe('DashScope usage', () => {
  it('reads native input/output tokens and cached_tokens as cache reads', () => {
    expect(usageFromDashScope(JSON.parse(DASHSCOPE_NATIVE).usage))
      .toEqual({ inputTokens: 3019, outputTokens: 104, cacheReadTokens: 2048, cacheWriteTokens: 0 })
  })

  it('reads the OpenAI-compatible shape and an explicit cache creation as a cache write', () => {
    expect(usageFromDashScope(JSON.parse(DASHSCOPE_COMPATIBLE_EXPLICIT).usage))
      .toEqual({ inputTokens: 1618, outputTokens: 37, cacheReadTokens: 0, cacheWriteTokens: 1500 })
  })

  it('turns a missing or malformed record into zeros', () => {
    expect(usageFromDashScope(undefined)).toEqual({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 })
    expect(usageFromDashScope({ input_tokens: -3, prompt_tokens_details: null })).toEqual({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 })
  })
})
