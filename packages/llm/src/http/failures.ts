import { HttpAdapterError, type HttpAdapterErrorCode, type HttpAdapterErrorDetails } from './error.ts'
import { retryAfterSeconds } from './retry-after.ts'
import { describeCause, redactSecret } from './text.ts'

/** What a failure message needs to say where it happened, and the secret it must never show. */
export interface RequestSite {
  url: string
  model: string
  apiKey: string
  timeoutMs?: number
}

type ErrorClass<T> = abstract new (...args: any[]) => T

/** An SDK's HTTP error, as far as the failure mapper reads it. */
export type SdkApiError = Error & { status?: number | undefined; headers?: Headers | undefined }

/**
 * The error classes of a Stainless-generated SDK (`openai`, `@anthropic-ai/sdk`). Each SDK has its own
 * classes with the same names and meanings, so the adapter hands its SDK's over.
 */
export interface SdkErrorClasses<A extends SdkApiError> {
  APIError: ErrorClass<A>
  APIConnectionError: ErrorClass<Error>
  APIConnectionTimeoutError: ErrorClass<Error>
  APIUserAbortError: ErrorClass<Error>
}

/** What `failureMapper` needs to know about one adapter package. */
export interface FailureMapperSpec<A extends SdkApiError> {
  sdk: SdkErrorClasses<A>
  /** What the stream is counted in, for messages (`after 2 chunks`). */
  unit: string
  /** The provider's own words from an HTTP error's body; cut to 500 characters. */
  providerMessage(error: A): string
}

/** Turns what an SDK throws into `HttpAdapterError`s, with the API key scrubbed from every message. */
export interface FailureMapper {
  /** An error thrown while sending the request (before any stream byte). */
  requestFailure(error: unknown, site: RequestSite, signal?: AbortSignal): HttpAdapterError
  /** An error thrown while reading the event stream; `received` counts the units read. */
  streamFailure(error: unknown, site: RequestSite, received: number, signal?: AbortSignal): HttpAdapterError
  /** The error a request ends with once its abort signal fired. */
  cancelled(site: RequestSite): HttpAdapterError
  /** The error a started stream ends with when it stayed silent for `idleMs`; `received` counts the units read. */
  stalled(site: RequestSite, received: number, idleMs: number): HttpAdapterError
}

const MAX_PROVIDER_MESSAGE = 500

/** Builds the failure translation of one SDK-based adapter package. */
export function failureMapper<A extends SdkApiError>(spec: FailureMapperSpec<A>): FailureMapper {
  const { sdk, unit } = spec
  const build = (code: HttpAdapterErrorCode, message: string, site: RequestSite, details: HttpAdapterErrorDetails = {}) =>
    new HttpAdapterError(code, redactSecret(message, site.apiKey), details)
  const providerMessage = (error: A) => {
    // a provider's words may span lines; an error message is one
    const text = spec.providerMessage(error).replace(/\s*[\r\n]+\s*/g, ' ').trim()
    return text.length > MAX_PROVIDER_MESSAGE ? `${text.slice(0, MAX_PROVIDER_MESSAGE)}…` : text
  }
  const cancelled = (site: RequestSite) => new HttpAdapterError('CANCELLED', `request to ${site.url} for model "${site.model}" was cancelled`)

  return {
    cancelled,
    stalled: (site, received, idleMs) => build('STREAM_STALLED',
      `no data from ${site.url} for model "${site.model}" for ${idleMs} ms after ${received} ${unit} (idleTimeoutMs); the request was abandoned`, site),
    requestFailure(error, site, signal) {
      if (signal?.aborted || error instanceof sdk.APIUserAbortError) return cancelled(site)
      if (error instanceof sdk.APIConnectionTimeoutError) {
        const after = site.timeoutMs === undefined ? '' : ` after ${site.timeoutMs} ms`
        return build('CONNECTION_ERROR', `request to ${site.url} for model "${site.model}" timed out${after}`, site)
      }
      if (error instanceof sdk.APIConnectionError) {
        return build('CONNECTION_ERROR', `could not reach ${site.url} for model "${site.model}": ${describeCause(error.cause ?? error)}`, site, {
          cause: error.cause,
        })
      }
      if (error instanceof sdk.APIError && typeof error.status === 'number') {
        const retryAfter = retryAfterSeconds(error.headers)
        const wait = retryAfter === undefined ? '' : ` (retry after ${retryAfter} s)`
        return build('HTTP_ERROR', `HTTP ${error.status} from ${site.url} for model "${site.model}"${wait}: ${providerMessage(error)}`, site, {
          status: error.status,
          ...retryAfter !== undefined && { retryAfterSeconds: retryAfter },
        })
      }
      return build('CONNECTION_ERROR', `request to ${site.url} for model "${site.model}" failed: ${describeCause(error)}`, site)
    },
    streamFailure(error, site, received, signal) {
      if (signal?.aborted) return cancelled(site)
      if (HttpAdapterError.is(error, 'STREAM_STALLED')) return error
      if (error instanceof sdk.APIUserAbortError) return cancelled(site)
      if (HttpAdapterError.is(error)) {
        return build(error.code, `response from ${site.url} for model "${site.model}" is unusable: ${error.message}`, site)
      }
      if (error instanceof SyntaxError) {
        return build('MALFORMED_STREAM', `malformed server-sent event from ${site.url} for model "${site.model}" after ${received} ${unit}: ${error.message}`, site)
      }
      if (error instanceof sdk.APIError && error.status === undefined && !(error instanceof sdk.APIConnectionError)) {
        return build('HTTP_ERROR', `${site.url} reported an error mid-stream for model "${site.model}": ${providerMessage(error)}`, site)
      }
      return build('CONNECTION_ERROR', `connection to ${site.url} was lost mid-stream for model "${site.model}" after ${received} ${unit}: ${describeCause(error)}`, site, {
        cause: error,
      })
    },
  }
}
