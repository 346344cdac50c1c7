import type { FailureMapperSpec } from 'dsh-llm/http'
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai'

/** How the OpenAI SDK's errors read; the stream is counted in chunks. */
export const failures: FailureMapperSpec<APIError> = {
  sdk: { APIError, APIConnectionError, APIConnectionTimeoutError, APIUserAbortError },
  unit: 'chunks',
  providerMessage,
}

/** The provider's own words from an error body: OpenAI nests them under `error`, vLLM keeps them on top. */
function providerMessage(error: APIError): string {
  const body = (error as APIError & { body?: unknown }).body ?? error.error
  return bodyMessage(body) ?? bodyMessage((body as { error?: unknown } | undefined)?.error)
    ?? (typeof body === 'string' && body.trim() ? body.trim() : undefined)
    ?? (body && typeof body === 'object' ? JSON.stringify(body) : undefined)
    ?? '(no error message in the response body)'
}

/** The `message` (or `detail`) string of an error body object, when it has a non-empty one. */
function bodyMessage(value: unknown): string | undefined {
  if (!value || typeof value !== 'object') return undefined
  const { message, detail } = value as { message?: unknown; detail?: unknown }
  if (typeof message === 'string' && message) return message
  if (typeof detail === 'string' && detail) return detail
}
