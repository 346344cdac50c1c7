import { CodedError } from 'dsh-core'

/** Every way tools-static can refuse its config; tests and callers switch on `code`. */
export type ToolsStaticErrorCode = 'INVALID_TOOL_NAME' | 'DUPLICATE_TOOL' | 'INVALID_PARAMETERS' | 'CONFLICTING_DELAYS' | 'REVEAL_WITHOUT_DEFER' | 'INVALID_KIND'

/** The one error class of dsh-tools-static. */
export class ToolsStaticError extends CodedError<ToolsStaticErrorCode> {
  static override readonly marker = 'dsh-tools-static'
  override name = 'ToolsStaticError'
}
