/** HTTP helpers for adapters that talk to a provider over HTTP: the adapter frame and plugin, shared config keys, failure mapping, error kinds. */
export { createHttpAdapter, httpWireBody, requestBeta, type AdapterWarn, type HttpAdapterDefinition, type WireRequest } from './adapter.ts'
export {
  DEFAULT_TOOL_UPDATE_BETA, httpAdapterConfig, type HttpAdapterConfig, type HttpModel,
  type ResolvedHttpAdapterConfig,
} from './adapter-config.ts'
export { checkHttpEndpoint, checkHttpTransport, DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_TIMEOUT_MS } from './config.ts'
export { traceBlock, tracedBlock, type WireMarkable } from './marks.ts'
export { lazyConnection } from './connect.ts'
export { HttpAdapterError, type HttpAdapterErrorCode } from './error.ts'
export { failureMapper, type FailureMapperSpec } from './failures.ts'
export { httpAdapterPlugin } from './plugin.ts'
export { retryAfterSeconds } from './retry-after.ts'
export { describeCause, redactSecret } from './text.ts'
