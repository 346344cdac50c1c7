/** HTTP helpers for adapters that talk to a provider over HTTP: the adapter frame and plugin, shared config keys, failure mapping, error kinds. */
export { createHttpAdapter, type HttpWireFormat, type WireRequest, type WireStreamReader } from './adapter.ts'
export {
  httpAdapterSchema,
  invalidConfig,
  resolveHttpAdapterConfig,
  type HttpAdapterConfig,
  type HttpAdapterDefaults,
  type HttpAdapterSchemaFields,
  type HttpModel,
  type HttpModelEntry,
  type ResolvedHttpAdapterConfig,
} from './adapter-config.ts'
export {
  checkHttpEndpoint,
  checkHttpTransport,
  DEFAULT_IDLE_TIMEOUT_MS,
  DEFAULT_TIMEOUT_MS,
  httpEndpointSchema,
  httpTransportSchema,
  type HttpEndpointConfig,
  type HttpEndpointDefaults,
  type HttpTransportConfig,
} from './config.ts'
export { lazyConnection, requireApiKey, type LazyConnectionOptions } from './connect.ts'
export { withIdleTimeout } from './idle-timeout.ts'
export { HttpAdapterError, type HttpAdapterErrorCode, type HttpAdapterErrorDetails } from './error.ts'
export {
  failureMapper,
  type FailureMapper,
  type FailureMapperSpec,
  type RequestSite,
  type SdkApiError,
  type SdkErrorClasses,
} from './failures.ts'
export { httpAdapterPlugin } from './plugin.ts'
export { retryAfterSeconds } from './retry-after.ts'
export { describeCause, redactSecret } from './text.ts'
