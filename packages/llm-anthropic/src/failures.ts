import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from '@anthropic-ai/sdk'
import type { FailureMapperSpec } from 'dsh-llm/http'

/** How the Anthropic SDK's errors read; the stream is counted in events. */
export const failures: FailureMapperSpec<APIError> = {
  sdk: { APIError, APIConnectionError, APIConnectionTimeoutError, APIUserAbortError },
  unit: 'events',
  providerMessage,
}

/** The provider's own words from an error body (`{ type: 'error', error: { type, message } }`). */
function providerMessage(error: APIError): string {
  const body = error.error as { error?: { type?: unknown; message?: unknown }; message?: unknown } | string | undefined
  let text: string | undefined
  if (body && typeof body === 'object') {
    const inner = body.error
    const message = typeof inner?.message === 'string' && inner.message ? inner.message
      : typeof body.message === 'string' && body.message ? body.message : undefined
    if (message) text = typeof inner?.type === 'string' && inner.type ? `${inner.type}: ${message}` : message
    else text = JSON.stringify(body)
  } else if (typeof body === 'string' && body.trim()) {
    text = body.trim()
  }
  // A body that is not JSON reaches us only inside the SDK's message, after the status code.
  const fromMessage = error.message.replace(/^\d{3} /, '')
  return text ?? (fromMessage && !fromMessage.startsWith('status code (no body)') ? fromMessage : '(no error message in the response body)')
}
