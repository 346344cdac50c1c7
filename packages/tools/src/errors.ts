import { CodedError } from 'dsh-core'

/** Every way the tool runtime can refuse input; tests and callers switch on `code`. */
export type ToolsErrorCode =
  | 'INVALID_TOOL'
  | 'INVALID_TOOL_NAME'
  | 'RESERVED_TOOL_NAME'
  | 'DUPLICATE_TOOL'
  | 'INVALID_PARAMETERS'
  | 'UNKNOWN_TOOL'
  | 'INVALID_CONFIG'
  | 'TIMEOUT'

/** The one error class of dsh-tools. */
export class ToolsError extends CodedError<ToolsErrorCode> {
  static override readonly marker = 'dsh-tools'
  override name = 'ToolsError'
}
