import { quote } from 'dsh-core'
import { describe, expect, it } from 'vitest'
import { HttpAdapterError } from 'dsh-llm/http'
import { checkHttpEndpoint, checkHttpTransport } from '../src/http/config.ts'
import { describeCause, redactSecret } from '../src/http/text.ts'
import { failureMapper } from '../src/http/failures.ts'
import { lazyConnection } from '../src/http/connect.ts'
import { retryAfterSeconds } from '../src/http/retry-after.ts'

// Stand-ins for an SDK's error classes, shaped like the Stainless ones.
class APIError extends Error {
  constructor(readonly status: number | undefined, readonly headers: Headers | undefined, message: string) {
    super(message)
  }
}
class APIConnectionError extends APIError {}
class APIConnectionTimeoutError extends APIConnectionError {}
class APIUserAbortError extends APIError {}

const invalid = (message: string) => new HttpAdapterError('INVALID_CONFIG', message)
const site = { url: 'http://127.0.0.1:1/v1/x', model: 'm', apiKey: 'sk-secret' }

describe('message helpers', () => {
  it('reads retry-after as seconds, as an HTTP date, or retry-after-ms', () => {
    expect(retryAfterSeconds(new Headers({ 'retry-after': '17' }))).toBe(17)
    expect(retryAfterSeconds(new Headers({ 'retry-after': new Date(10_000).toUTCString() }), 2_500)).toBe(8)
    expect(retryAfterSeconds(new Headers({ 'retry-after-ms': '1500' }))).toBe(1.5)
    expect(retryAfterSeconds(new Headers({ 'retry-after': 'soon' }))).toBeUndefined()
    expect(retryAfterSeconds(undefined)).toBeUndefined()
  })

  it('redacts every occurrence of the secret, and nothing for an empty one', () => {
    expect(redactSecret('key sk-1 and sk-1 again', 'sk-1')).toBe('key [redacted] and [redacted] again')
    expect(redactSecret('nothing to hide', '')).toBe('nothing to hide')
  })

  it('describes an error with its distinct causes', () => {
    const error = new Error('terminated', { cause: new Error('other side closed', { cause: new Error('other side closed') }) })
    expect(describeCause(error)).toBe('terminated (other side closed)')
    expect(describeCause('plain')).toBe('plain')
    expect(describeCause(null)).toBe('unknown error')
  })

  it('quotes strings as JSON and leaves other values as they print', () => {
    expect(quote('a "b"\n')).toBe('"a \\"b\\"\\n"')
    expect(quote(42)).toBe('42')
  })
})

describe('config checks', () => {
  it('refuses a baseURL that is not http(s) and an apiKeyEnv that is not a NAME, without echoing it', () => {
    expect(() => checkHttpEndpoint({ baseURL: 'ftp://x', apiKeyEnv: 'KEY' }, invalid)).toThrow('baseURL must be an http(s) URL, got "ftp://x"')
    const pasted = () => checkHttpEndpoint({ baseURL: 'https://x', apiKeyEnv: 'sk-live-123' }, invalid)
    expect(pasted).toThrow(/apiKeyEnv must be the NAME/)
    expect(pasted).not.toThrow(/sk-live-123/)
    expect(() => checkHttpEndpoint({ baseURL: 'https://x', apiKeyEnv: 'KEY_1' }, invalid)).not.toThrow()
  })

  it('refuses fractional retries, a zero timeout, credential headers and non-string header values', () => {
    expect(() => checkHttpTransport({ maxRetries: 1.5, headers: {} }, invalid)).toThrow('maxRetries must be a whole number >= 0, got 1.5')
    expect(() => checkHttpTransport({ maxRetries: 0, timeoutMs: 0, headers: {} }, invalid)).toThrow(/timeoutMs/)
    expect(() => checkHttpTransport({ maxRetries: 0, headers: { 'X-Api-Key': 'k' } }, invalid)).toThrow(/must not carry credentials \("X-Api-Key"\)/)
    expect(() => checkHttpTransport({ maxRetries: 0, headers: { a: 1 as never } }, invalid)).toThrow('header "a" must be a string, got 1')
    expect(() => checkHttpTransport({ maxRetries: 2, timeoutMs: 5, headers: { 'x-team': 'dsh' } }, invalid)).not.toThrow()
  })
})

describe('lazyConnection', () => {
  it('reads the key at the first request, builds the client once and says when the variable is missing or empty', () => {
    const name = 'DSH_TEST_LAZY_CONNECTION_KEY'
    delete process.env[name]
    const built: string[] = []
    const connect = lazyConnection({ apiKeyEnv: name, timeoutMs: 50 }, {
      owner: 'dsh-test', url: site.url, createClient: (apiKey) => built.push(apiKey),
    })
    expect(() => connect('m')).toThrow(`environment variable ${name} is not set (needed by dsh-test for model m)`)
    process.env[name] = ''
    expect(() => connect('m')).toThrow(`environment variable ${name} is empty`)
    process.env[name] = ' \r\n'
    expect(() => connect('m')).toThrow(`environment variable ${name} is empty`)
    // a CRLF .env or a pasted space: the key is sent, and so redacted, trimmed
    process.env[name] = ' sk-1\r'
    try {
      expect(connect('a').site).toEqual({ url: site.url, model: 'a', apiKey: 'sk-1', timeoutMs: 50 })
      expect(connect('b').site.model).toBe('b')
      expect(built).toEqual(['sk-1'])
    } finally {
      delete process.env[name]
    }
  })
})

describe('failureMapper', () => {
  const { requestFailure, streamFailure, cancelled } = failureMapper({
   
    sdk: { APIError, APIConnectionError, APIConnectionTimeoutError, APIUserAbortError },
    unit: 'frames',
    providerMessage: (error) => error.message,
  })

  it('maps HTTP errors with their status and retry-after, scrubbing the key and cutting long provider text', () => {
    const error = requestFailure(new APIError(429, new Headers({ 'retry-after': '3' }), `bad key sk-secret ${'x'.repeat(600)}`), site)
    expect(error).toBeInstanceOf(HttpAdapterError)
    expect(error).toMatchObject({ name: 'HttpAdapterError', code: 'HTTP_ERROR', status: 429, retryAfterSeconds: 3 })
    expect(error.message).toMatch(/^HTTP 429 from http:\/\/127\.0\.0\.1:1\/v1\/x for model "m" \(retry after 3 s\): bad key \[redacted\] x+…$/)
    expect(error.message).not.toContain('sk-secret')
  })

  it('maps timeouts, unreachable servers, aborts and malformed streams', () => {
    expect(requestFailure(new APIConnectionTimeoutError(undefined, undefined, 't'), { ...site, timeoutMs: 100 }).message).toContain('timed out after 100 ms')
    expect(requestFailure(new APIConnectionError(undefined, undefined, 'refused'), site).message).toContain('could not reach')
    expect(requestFailure(new Error('x'), site, AbortSignal.abort()).code).toBe('CANCELLED')
    expect(cancelled(site).message).toBe('request to http://127.0.0.1:1/v1/x for model "m" was cancelled')
    const malformed = streamFailure(new SyntaxError('Unexpected end'), site, 3)
    expect(malformed).toMatchObject({ code: 'MALFORMED_STREAM' })
    expect(malformed.message).toContain('after 3 frames: Unexpected end')
    expect(streamFailure(new Error('reset'), site, 2).message).toContain('was lost mid-stream for model "m" after 2 frames: reset')
  })
})
