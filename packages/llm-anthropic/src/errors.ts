/** Every way `dsh-llm-anthropic` can fail; tests and callers switch on `code`. */
export type AnthropicAdapterErrorCode =
  | 'INVALID_CONFIG'
  | 'MISSING_API_KEY'
  | 'HTTP_ERROR'
  | 'CONNECTION_ERROR'
  | 'MALFORMED_STREAM'
  | 'TRUNCATED_STREAM'
  | 'INVALID_TOOL_CALL'
  | 'CANCELLED'

/** The one error class of `dsh-llm-anthropic`. Messages never contain the API key. */
export class AnthropicAdapterError extends Error {
  override name = 'AnthropicAdapterError'
  /** HTTP status of the failed response, when there was one. */
  status?: number
  /** Seconds the provider asked us to wait (`retry-after`), when it said. */
  retryAfterSeconds?: number

  constructor(
    public readonly code: AnthropicAdapterErrorCode,
    message: string,
    details: { status?: number; retryAfterSeconds?: number; cause?: unknown } = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause })
    if (details.status !== undefined) this.status = details.status
    if (details.retryAfterSeconds !== undefined) this.retryAfterSeconds = details.retryAfterSeconds
  }
}

/** Quotes a value for an error message the way JSON would, so odd characters stay visible. */
export function quote(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value)
}
