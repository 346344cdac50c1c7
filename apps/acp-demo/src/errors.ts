import { RequestError } from '@agentclientprotocol/sdk'
import { CodedError } from 'dsh-core'

/** Every way the ACP front door refuses a request; tests and callers switch on `code` (or `data.code` on the wire). */
export type AcpDemoErrorCode =
  | 'UNKNOWN_SESSION'
  | 'UNSUPPORTED_CONTENT'
  | 'BUSY'
  | 'TURN_FAILED'
  | 'INVALID_MCP_SERVER'
  | 'INVALID_PARAMS'
  | 'NOT_HELD'
  | 'KEPT'
  | 'NO_ANSWER'

/** The one error class of dsh-acp-demo. */
export class AcpDemoError extends CodedError<AcpDemoErrorCode> {
  static override readonly marker = 'dsh-acp-demo'
  override name = 'AcpDemoError'
  constructor(code: AcpDemoErrorCode, message: string, public readonly data: Record<string, unknown> = {}) {
    super(code, message)
  }
}

// JSON-RPC codes: -32002 is ACP's "resource not found"; the rest are the JSON-RPC 2.0 ones.
const RPC_CODES: Record<AcpDemoErrorCode, number> = {
  UNKNOWN_SESSION: -32002,
  UNSUPPORTED_CONTENT: -32602,
  BUSY: -32600,
  TURN_FAILED: -32603,
  INVALID_MCP_SERVER: -32602,
  INVALID_PARAMS: -32602,
  NOT_HELD: -32002,
  KEPT: -32600,
  NO_ANSWER: -32600,
}

/**
 * The JSON-RPC error a client receives. The message is ours, never the SDK's generic "Internal error",
 * so an editor shows what went wrong (for a failed turn: the turn's own message).
 */
export function toRequestError(error: unknown): RequestError {
  if (error instanceof RequestError) return error
  if (AcpDemoError.is(error)) {
    return new RequestError(RPC_CODES[error.code], error.message, { code: error.code, ...error.data })
  }
  const message = error instanceof Error ? error.message : String(error)
  return new RequestError(-32603, message)
}
