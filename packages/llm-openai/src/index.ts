export { OpenAIProvider, OpenAIProvider as default } from './plugin.ts'
export { chatWireBody, createOpenAIAdapter } from './adapter.ts'
export { planChatCaching, promptCacheKey } from './cache-planning.ts'
export {
  Config, DEFAULT_CONTEXT_WINDOW, DEFAULT_TOOL_UPDATE_BETA_HEADER, KNOWN_TOOL_UPDATE, PROMPT_CACHE_KEYS, defaultToolUpdate, resolveConfig, type OpenAIConfig,
  type PromptCacheKeyMode,
} from './config.ts'
export { DEFAULT_TOOL_UPDATE_BETA } from 'dsh-llm/http'
export {
  buildChatRequest, type BuiltChatRequest, type ChatRequest, type DashScopeCacheControl, type DashScopeMarkedMessage, type DashScopeTextPart, type WireChatTool,
  type WireToolUpdateBlock,
} from './request.ts'
export { toUsage, usageReaderOf, type UsageReader, type WireUsage } from './usage.ts'
