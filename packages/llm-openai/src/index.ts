export { OpenAIProvider, OpenAIProvider as default } from './plugin.ts'
export { createOpenAIAdapter, PROVIDER } from './adapter.ts'
export {
  Config, DEFAULT_API_KEY_ENV, DEFAULT_BASE_URL, DEFAULT_CONTEXT_WINDOW, DEFAULT_TOOL_UPDATE_BETA, DEFAULT_TOOL_UPDATE_BETA_HEADER,
  KNOWN_TOOL_UPDATE, defaultToolUpdate, resolveConfig, type OpenAIConfig, type OpenAIModel, type ResolvedOpenAIConfig,
} from './config.ts'
export { buildChatRequest, type BuiltChatRequest, type ChatRequest, type WireChatTool, type WireToolUpdateBlock } from './request.ts'
export { toUsage, type WireUsage } from './usage.ts'
