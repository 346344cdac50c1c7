export { AnthropicProvider, AnthropicProvider as default } from './plugin.ts'
export { createAnthropicAdapter, PROVIDER } from './adapter.ts'
export {
  Config,
  DEFAULT_API_KEY_ENV,
  DEFAULT_BASE_URL,
  DEFAULT_CONTEXT_WINDOW,
  DEFAULT_MAX_TOKENS,
  DEFAULT_TOOL_UPDATE,
  DEFAULT_TOOL_UPDATE_BETA,
  resolveConfig,
  type AnthropicConfig,
  type AnthropicModel,
  type ResolvedAnthropicConfig,
} from './config.ts'
export { AnthropicAdapterError, type AnthropicAdapterErrorCode } from './errors.ts'
export {
  buildMessagesRequest,
  type BuiltRequest,
  type MessagesRequest,
  type WireContentBlock,
  type WireMessage,
  type WireTool,
  type WireToolUpdateBlock,
} from './request.ts'
export { toUsage, UsageAccumulator, type WireUsage } from './usage.ts'
export { retryAfterSeconds } from 'dsh-llm'
