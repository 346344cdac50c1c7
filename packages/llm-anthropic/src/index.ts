export { AnthropicProvider, AnthropicProvider as default } from './plugin.ts'
export { createAnthropicAdapter, PROVIDER } from './adapter.ts'
export {
  Config, DEFAULT_API_KEY_ENV, DEFAULT_BASE_URL, DEFAULT_TOOL_UPDATE_BETA, resolveConfig, type AnthropicConfig, type AnthropicModel,
} from './config.ts'
export { buildMessagesRequest } from './request.ts'
export { toUsage, UsageAccumulator, type WireUsage } from './usage.ts'
