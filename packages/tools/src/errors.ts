import { CodedError } from 'dsh-core'

/** Every way the tool runtime can refuse input; tests and callers switch on `code`. */
export type ToolErrorCode =
  | 'INVALID_TOOL'
  | 'INVALID_TOOL_NAME'
  | 'RESERVED_TOOL_NAME'
  | 'DUPLICATE_TOOL'
  | 'INVALID_PARAMETERS'
  | 'UNKNOWN_TOOL'
  | 'INVALID_CONFIG'
  | 'TIMEOUT'

/** The one error class of dsh-tools. */
export class ToolError extends CodedError<ToolErrorCode> {
  override name = 'ToolError'
}
