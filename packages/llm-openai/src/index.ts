export { OpenAIProvider, OpenAIProvider as default } from './plugin.ts'
export { createOpenAIAdapter } from './adapter.ts'
export {
  Config, DEFAULT_CONTEXT_WINDOW, DEFAULT_TOOL_UPDATE_BETA_HEADER, KNOWN_TOOL_UPDATE, defaultToolUpdate, resolveConfig, type OpenAIConfig,
} from './config.ts'
export { DEFAULT_TOOL_UPDATE_BETA } from 'dsh-llm/http'
export { buildChatRequest, type BuiltChatRequest, type ChatRequest, type WireChatTool, type WireToolUpdateBlock } from './request.ts'
export { toUsage, type WireUsage } from './usage.ts'
