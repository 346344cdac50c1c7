import { fileURLToPath } from 'node:url'
import { wireTypeCases } from 'dsh-llm-testing'
import { chatWireBody } from '../src/index.ts'
import { createOpenAIAdapter } from '../src/adapter.ts'

const BASE = 'http://127.0.0.1:9/v1'
/** A model that takes explicit breakpoints (GPT-5.6 and later). */
const BREAKPOINT_MODEL = 'gpt-5.6'

wireTypeCases({
  adapter: 'dsh-llm-openai',
  file: fileURLToPath(new URL('./wire-bodies.ts', import.meta.url)),
  imports: [
    "import type { ChatCompletionCreateParamsStreaming } from 'openai/resources/chat/completions'",
    "import type { DashScopeChatParams, DeepSeekChatParams } from '../src/request.ts'",
  ],
  routes: [
    { provider: 'openai', typeName: 'ChatCompletionCreateParamsStreaming', allowed: ['prompt_cache_key', 'prompt_cache_retention'] },
    {
      provider: 'openai', name: 'openaiBreakpoints', model: BREAKPOINT_MODEL, typeName: 'ChatCompletionCreateParamsStreaming',
      allowed: ['prompt_cache_key', 'prompt_cache_options', 'prompt_cache_breakpoint'],
    },
    { provider: 'deepseek', typeName: 'DeepSeekChatParams', allowed: ['defer_loading', 'tool_addition', 'tool_removal'] },
    { provider: 'dashscope', typeName: 'DashScopeChatParams', allowed: ['cache_control'] },
    { provider: 'generic', typeName: 'ChatCompletionCreateParamsStreaming', allowed: [] },
  ],
  // the openai entries ask for a lifetime (24-hour retention; 30m on the breakpoint model), so that field is exercised too
  body: (provider, mode, request) => chatWireBody({
    baseURL: BASE, provider, models: [{ id: request.model, ...mode && { toolUpdate: mode }, ...provider === 'openai' && { cacheTtl: request.model === BREAKPOINT_MODEL ? '30m' : '24h' } }],
  }, request).body,
  defaultMode: (provider) => (createOpenAIAdapter({ baseURL: BASE, provider, models: ['test-model'] }).toolUpdate as (model: string) => 'none')('test-model'),
})
