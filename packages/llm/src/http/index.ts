/** HTTP helpers for adapters that talk to a provider over HTTP: the adapter frame and plugin, shared config keys, failure mapping, error kinds. */
export { createHttpAdapter, httpWireBody, requestBeta, type HttpAdapterDefinition, type WireRequest } from './adapter.ts'
export {
  DEFAULT_TOOL_UPDATE_BETA, httpAdapterConfig, type HttpAdapterConfig, type HttpModel,
  type ResolvedHttpAdapterConfig,
} from './adapter-config.ts'
export { HttpAdapterError } from './error.ts'
export type { FailureMapperSpec } from './failures.ts'
export { traceBlock, tracedBlock, type WireMarkable } from './marks.ts'
export { httpAdapterPlugin } from './plugin.ts'
