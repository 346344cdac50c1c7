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
 * Base of the one error class of each HTTP adapter package (`OpenAIAdapterError`, …), which sets its own
 * `name`. Never thrown as itself.
 */
export abstract class HttpAdapterError extends Error {
  // Declared first so a subclass's own `name` keeps the key order the adapters' errors always had.
  override name = 'HttpAdapterError'
  /** HTTP status of the failed response, when there was one. */
  status?: number
  /** Seconds the provider asked us to wait (`retry-after`), when it said. */
  retryAfterSeconds?: number

  constructor(
    public readonly code: HttpAdapterErrorCode,
    message: string,
    details: HttpAdapterErrorDetails = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause })
    if (details.status !== undefined) this.status = details.status
    if (details.retryAfterSeconds !== undefined) this.retryAfterSeconds = details.retryAfterSeconds
  }
}
