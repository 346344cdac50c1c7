import { CodedError } from 'dsh-core'

/** Every way the system-prompt service can refuse input; tests and callers switch on `code`. */
export type SystemPromptErrorCode =
  | 'INVALID_TOOL_ORDER'
  | 'UNKNOWN_TOOL_ORDER_NAME'
  | 'RESERVED_TOOL_NAME'
  | 'DUPLICATE_TOOL'
  | 'INVALID_TOOL_SCHEMA'
  | 'INVALID_SCHEMA_KEY_ORDER'
  | 'INVALID_PROVIDER_RESULT'
  | 'DUPLICATE_SECTION'
  | 'INVALID_SECTION'
  | 'DUPLICATE_VARIABLE'
  | 'INVALID_VARIABLE'
  | 'UNKNOWN_VARIABLE'
  | 'MISSING_VARIABLE'
  | 'MALFORMED_PLACEHOLDER'
  | 'DUPLICATE_CONTEXT'
  | 'INVALID_CONTEXT'
  | 'MULTIPLE_COMPLETE_SECTIONS'
  | 'INVALID_SCOPE'
  | 'INACTIVE_SCOPE'
  | 'INVALID_LISTENER'
  | 'INVALID_CONFIG'

/** The one error class of dsh-system-prompt. */
export class SystemPromptError extends CodedError<SystemPromptErrorCode> {
  static override readonly marker = 'dsh-system-prompt'
  override name = 'SystemPromptError'
}
