/** HTTP helpers for adapters that talk to a provider over HTTP: the adapter frame and plugin, shared config keys, failure mapping, error kinds. */
export { createHttpAdapter, httpWireBody, type HttpAdapterDefinition, type WireRequest, type WireStreamReader } from './adapter.ts'
export {
  DEFAULT_TOOL_UPDATE_BETA,
  httpAdapterConfig,
  type HttpAdapterConfig,
  type HttpAdapterDefaults,
  type HttpAdapterOwnKey,
  type HttpAdapterOwnKeys,
  type HttpAdapterSchemaFields,
  type HttpModel,
  type HttpModelEntry,
  type ResolvedHttpAdapterConfig,
} from './adapter-config.ts'
export { checkHttpEndpoint, checkHttpTransport, DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_TIMEOUT_MS } from './config.ts'
export { lazyConnection } from './connect.ts'
export { HttpAdapterError, type HttpAdapterErrorCode, type HttpAdapterErrorDetails } from './error.ts'
export { failureMapper, type FailureMapperSpec, type SdkApiError } from './failures.ts'
export { httpAdapterPlugin } from './plugin.ts'
export { retryAfterSeconds } from './retry-after.ts'
export { describeCause, redactSecret } from './text.ts'
