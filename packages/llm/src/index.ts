export type {
  ChatMessage,
  GenerateOptions,
  LlmAdapter,
  StopReason,
  StreamEvent,
  ToolCall,
  ToolDefinition,
  ToolHistorySnapshot,
  ToolHistoryUpdate,
  ToolUpdateMessage,
  ToolUpdateMode,
  Usage,
} from './types.ts'
export { LlmRuntime, type LlmResponseInfo } from './runtime.ts'
export { LlmError, type LlmErrorCode } from './error.ts'
export { collect, type CollectedResponse } from './collect.ts'
export { deepFreeze, frozenJsonCopy, isDeepFrozen } from './freeze.ts'
export { addUsage, emptyUsage, normalizeUsage } from './usage.ts'
export {
  TOOL_UPDATE_MODES,
  projectToolUpdates,
  type ProjectedMessage,
  type ProjectionFallback,
  type ToolDeclaration,
  type ToolProjection,
  type ToolUpdateNotice,
} from './projection.ts'
export { AdapterPlugin } from './adapter-plugin.ts'
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
} from './http/config.ts'
export { lazyConnection, requireApiKey, type LazyConnectionOptions } from './http/connect.ts'
export { withIdleTimeout } from './http/idle-timeout.ts'
export { HttpAdapterError, type HttpAdapterErrorCode, type HttpAdapterErrorDetails } from './http/error.ts'
export {
  failureMapper,
  type FailureMapper,
  type FailureMapperSpec,
  type RequestSite,
  type SdkApiError,
  type SdkErrorClasses,
} from './http/failures.ts'
export { retryAfterSeconds } from './http/retry-after.ts'
export { describeCause, quoteValue, redactSecret } from './http/text.ts'
export { LlmRuntime as default } from './runtime.ts'
