import { CodedError, oneLine } from 'dsh-core'

/** Every way dsh-tools-mcp can fail; tests and callers switch on `code`. */
export type ToolsMcpErrorCode =
  | 'INVALID_CONFIG'
  | 'NAME_COLLISION'
  | 'NOT_CONNECTED'
  | 'CALL_TIMEOUT'
  | 'CALL_FAILED'
  | 'TOOL_ERROR'

/**
 * What an error is about, as typed data (never parsed back out of the message): for a refused server entry
 * (`INVALID_CONFIG`), the entry's `server` name and the `reason` alone, without the server's name in front.
 */
export interface ToolsMcpErrorDetails {
  server?: string
  reason?: string
}

/** The one error class of dsh-tools-mcp. */
export class ToolsMcpError extends CodedError<ToolsMcpErrorCode, ToolsMcpErrorDetails> {
  static override readonly marker = 'dsh-tools-mcp'
  override name = 'ToolsMcpError'
}

/** A thrown value as one line of text. */
export function describeThrown(error: unknown): string {
  return oneLine(error instanceof Error ? error.message : String(error))
}
