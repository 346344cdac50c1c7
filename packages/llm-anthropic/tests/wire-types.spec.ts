import { fileURLToPath } from 'node:url'
import { wireTypeCases } from 'dsh-llm-testing'
import { messagesWireBody } from '../src/index.ts'
import { createAnthropicAdapter } from '../src/adapter.ts'

const BASE = 'http://127.0.0.1:9'

wireTypeCases({
  adapter: 'dsh-llm-anthropic',
  file: fileURLToPath(new URL('./wire-bodies.ts', import.meta.url)),
  imports: [
    "import type { MessageCreateParamsStreaming } from '@anthropic-ai/sdk/resources/messages'",
    "import type { MessageCreateParamsStreaming as BetaMessageCreateParamsStreaming } from '@anthropic-ai/sdk/resources/beta/messages'",
    "import type { DeepSeekMessagesParams } from '../src/request.ts'",
  ],
  routes: [
    { provider: 'anthropic', typeName: 'MessageCreateParamsStreaming', modes: ['none', 'append'], allowed: ['cache_control', 'diagnostics'] },
    // Anthropic's own tool-change blocks exist in the SDK's beta namespace only
    {
      provider: 'anthropic', name: 'anthropicBeta', typeName: 'BetaMessageCreateParamsStreaming', modes: ['addition-only', 'in-history'],
      allowed: ['cache_control', 'defer_loading', 'tool_addition', 'tool_removal', 'tool_definition', 'diagnostics'],
    },
    { provider: 'deepseek', typeName: 'DeepSeekMessagesParams', allowed: ['defer_loading', 'tool_addition', 'tool_removal'] },
    { provider: 'generic', typeName: 'MessageCreateParamsStreaming', allowed: [] },
  ],
  // the anthropic entries ask for the 1-hour lifetime, so the marker's ttl is exercised too, and take the
  // tool-change blocks (test-model is not a Claude id the profile knows)
  body: (provider, mode, request) => messagesWireBody({
    baseURL: BASE, provider, models: [{ id: request.model, ...mode && { toolUpdate: mode }, ...provider === 'anthropic' && { cacheTtl: '1h', toolChanges: true } }],
  }, request).body,
  defaultMode: (provider) => (createAnthropicAdapter({ baseURL: BASE, provider, models: ['test-model'] }).toolUpdate as (model: string) => 'none')('test-model'),
})
