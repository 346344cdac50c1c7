import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from '@anthropic-ai/sdk'
import { AnthropicAdapterError } from './errors.ts'

/** What a failure message needs to say where it happened, and the secret it must never show. */
export interface RequestSite {
  url: string
  model: string
  apiKey: string
  timeoutMs?: number
}

const MAX_PROVIDER_MESSAGE = 500

/** Turns an error thrown while sending the request (before any stream byte) into our error. */
export function requestFailure(error: unknown, site: RequestSite, signal?: AbortSignal): AnthropicAdapterError {
  if (signal?.aborted || error instanceof APIUserAbortError) return cancelled(site)
  if (error instanceof APIConnectionTimeoutError) {
    const after = site.timeoutMs === undefined ? '' : ` after ${site.timeoutMs} ms`
    return build('CONNECTION_ERROR', `request to ${site.url} for model "${site.model}" timed out${after}`, site)
  }
  if (error instanceof APIConnectionError) {
    return build('CONNECTION_ERROR', `could not reach ${site.url} for model "${site.model}": ${chain(error.cause ?? error)}`, site, {
      cause: error.cause,
    })
  }
  if (error instanceof APIError && typeof error.status === 'number') {
    const retryAfter = retryAfterSeconds(error.headers)
    const wait = retryAfter === undefined ? '' : ` (retry after ${retryAfter} s)`
    return build('HTTP_ERROR', `HTTP ${error.status} from ${site.url} for model "${site.model}"${wait}: ${providerMessage(error)}`, site, {
      status: error.status,
      ...retryAfter !== undefined && { retryAfterSeconds: retryAfter },
    })
  }
  return build('CONNECTION_ERROR', `request to ${site.url} for model "${site.model}" failed: ${chain(error)}`, site)
}

/** Turns an error thrown while reading the event stream into our error. `received` counts the events read. */
export function streamFailure(error: unknown, site: RequestSite, received: number, signal?: AbortSignal): AnthropicAdapterError {
  if (signal?.aborted || error instanceof APIUserAbortError) return cancelled(site)
  if (error instanceof AnthropicAdapterError) {
    return build(error.code, `response from ${site.url} for model "${site.model}" is unusable: ${error.message}`, site)
  }
  if (error instanceof SyntaxError) {
    return build('MALFORMED_STREAM', `malformed server-sent event from ${site.url} for model "${site.model}" after ${received} events: ${error.message}`, site)
  }
  if (error instanceof APIError && error.status === undefined && !(error instanceof APIConnectionError)) {
    return build('HTTP_ERROR', `${site.url} reported an error mid-stream for model "${site.model}": ${providerMessage(error)}`, site)
  }
  return build('CONNECTION_ERROR', `connection to ${site.url} was lost mid-stream for model "${site.model}" after ${received} events: ${chain(error)}`, site, {
    cause: error,
  })
}

/** The error a request ends with once its abort signal fired. */
export function cancelled(site: RequestSite): AnthropicAdapterError {
  return new AnthropicAdapterError('CANCELLED', `request to ${site.url} for model "${site.model}" was cancelled`)
}

/** Builds an error whose message is scrubbed of the API key. */
export function build(
  code: AnthropicAdapterError['code'],
  message: string,
  site: RequestSite,
  details: ConstructorParameters<typeof AnthropicAdapterError>[2] = {},
): AnthropicAdapterError {
  return new AnthropicAdapterError(code, redact(message, site.apiKey), details)
}

/** Replaces every occurrence of `secret` in `text` (providers sometimes echo the key back). */
export function redact(text: string, secret: string): string {
  return secret ? text.split(secret).join('[redacted]') : text
}

/** Seconds to wait from `retry-after` (seconds or an HTTP date) or `retry-after-ms`. */
export function retryAfterSeconds(headers: Headers | undefined, now = Date.now()): number | undefined {
  const raw = headers?.get('retry-after')?.trim()
  if (raw) {
    const seconds = Number(raw)
    if (Number.isFinite(seconds) && seconds >= 0) return seconds
    const date = Date.parse(raw)
    if (!Number.isNaN(date)) return Math.max(0, Math.ceil((date - now) / 1000))
  }
  const ms = Number(headers?.get('retry-after-ms') ?? NaN)
  return Number.isFinite(ms) && ms >= 0 ? ms / 1000 : undefined
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
  text ??= fromMessage && !fromMessage.startsWith('status code (no body)') ? fromMessage : '(no error message in the response body)'
  return text.length > MAX_PROVIDER_MESSAGE ? `${text.slice(0, MAX_PROVIDER_MESSAGE)}…` : text
}

/** An error's message followed by its causes' (`terminated (other side closed)`). */
function chain(error: unknown): string {
  const parts: string[] = []
  let current: unknown = error
  for (let depth = 0; current !== undefined && current !== null && depth < 4; depth++) {
    const text = current instanceof Error ? current.message : String(current)
    if (text && !parts.includes(text)) parts.push(text)
    current = current instanceof Error ? current.cause : undefined
  }
  return parts.length ? parts.length > 1 ? `${parts[0]} (${parts.slice(1).join(': ')})` : parts[0]! : 'unknown error'
}
