export { OpenAIProvider, OpenAIProvider as default } from './plugin.ts'
export { chatWireBody, createOpenAIAdapter } from './adapter.ts'
export { planChatCaching, promptCacheKey } from './cache-planning.ts'
export {
  Config, DEFAULT_CONTEXT_WINDOW, KNOWN_TOOL_UPDATE, PROMPT_CACHE_KEYS, type OpenAIConfig,
  type PromptCacheKeyMode,
} from './config.ts'
export {
  buildChatRequest, type ChatRequest, type DashScopeChatParams, type DeepSeekChatParams,
  type DashScopeMarkedMessage, type DashScopeTextPart,
} from './request.ts'
export { toUsage, usageReaderOf } from './usage.ts'
