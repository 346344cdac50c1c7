import { CodedError } from 'dsh-core'

/** Every way an HTTP adapter built on dsh-llm's `http` helpers can fail; tests and callers switch on `code`. */
export type HttpAdapterErrorCode =
  | 'INVALID_CONFIG'
  | 'MISSING_API_KEY'
  | 'HTTP_ERROR'
  | 'CONNECTION_ERROR'
  | 'STREAM_STALLED'
  | 'MALFORMED_STREAM'
  | 'TRUNCATED_STREAM'
  | 'INVALID_TOOL_CALL'
  | 'CANCELLED'

/** What an HTTP failure knows beside its message. */
export interface HttpAdapterErrorDetails {
  status?: number
  retryAfterSeconds?: number
  cause?: unknown
}

/**
 * The one error class of every HTTP adapter (`dsh-llm-openai`, `dsh-llm-anthropic`, …): the kinds of failure
 * are the same whatever the wire format, so callers switch on `code` without knowing the adapter.
 * Messages never contain the API key.
 */
export class HttpAdapterError extends CodedError<HttpAdapterErrorCode> {
  static override readonly marker = 'dsh-llm/http'
  override name = 'HttpAdapterError'
  /** HTTP status of the failed response, when there was one. */
  status?: number
  /** Seconds the provider asked us to wait (`retry-after`), when it said. */
  retryAfterSeconds?: number

  constructor(
    code: HttpAdapterErrorCode,
    message: string,
    details: HttpAdapterErrorDetails = {},
  ) {
    super(code, message, details.cause === undefined ? undefined : { cause: details.cause })
    if (details.status !== undefined) this.status = details.status
    if (details.retryAfterSeconds !== undefined) this.retryAfterSeconds = details.retryAfterSeconds
  }
}
