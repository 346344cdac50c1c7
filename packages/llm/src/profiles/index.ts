export { PROFILES, PROVIDER_IDS } from './catalog.ts'
export { ANTHROPIC_TOOL_CHANGE_MODELS } from './anthropic-tool-changes.ts'
export { cachePolicy, defaultCachePolicy, isProviderId, providerOfEndpoint, resolveProfile, toolUpdateRefusal } from './resolve.ts'
export type { CacheFacts, CacheMechanism, CacheTtl, ModelCachePolicy, ProfileSource, ProviderId, ProviderProfile, ToolChangeModels } from './types.ts'
