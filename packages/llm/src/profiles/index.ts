export { PROFILES, PROVIDER_IDS } from './catalog.ts'
export { cachePolicy, defaultCachePolicy, isProviderId, providerOfEndpoint, resolveProfile, toolUpdateRefusal } from './resolve.ts'
export type { CacheFacts, CacheMechanism, CacheTtl, ModelCachePolicy, ProfileSource, ProviderId, ProviderProfile } from './types.ts'
