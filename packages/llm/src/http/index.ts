/** HTTP helpers for adapters that talk to a provider over HTTP: config checks, lazy SDK connection, failure mapping, error kinds. */
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
export { retryAfterSeconds } from './retry-after.ts'
export { describeCause, redactSecret } from './text.ts'
