import { MAX_TIMER_MS, quote } from 'dsh-core'
import Schema from 'schemastery'

/** Where an HTTP adapter sends its requests, and the environment variable that holds its key. */
export interface HttpEndpointConfig {
  baseURL: string
  apiKeyEnv: string
}

/** How an HTTP adapter's requests travel: SDK retries, timeout, extra headers. */
export interface HttpTransportConfig {
  maxRetries: number
  /** Until the response headers arrive; `DEFAULT_TIMEOUT_MS` when omitted. */
  timeoutMs?: number
  /** Between two streamed events once the response has started; `DEFAULT_IDLE_TIMEOUT_MS` when omitted. */
  idleTimeoutMs?: number
  headers: Record<string, string>
}

/** How long a request may wait for the response headers (a streaming server sends them at once). */
export const DEFAULT_TIMEOUT_MS = 120_000

/**
 * How long a started stream may stay silent between two events before the request is abandoned. Long,
 * because some reasoning models think without streaming anything; a dead server still ends the turn.
 */
export const DEFAULT_IDLE_TIMEOUT_MS = 300_000

/** An adapter's own defaults for the endpoint keys. */
export interface HttpEndpointDefaults {
  baseURL: string
  /** Says what `baseURL` must point at for this wire format. */
  baseURLDescription: string
  apiKeyEnv: string
}

/** Schema fields of `HttpEndpointConfig`, for an adapter's `Schema.object`. */
export function httpEndpointSchema(defaults: HttpEndpointDefaults): { baseURL: Schema<string>; apiKeyEnv: Schema<string> } {
  return {
    baseURL: Schema.string().default(defaults.baseURL).description(defaults.baseURLDescription),
    apiKeyEnv: Schema.string().default(defaults.apiKeyEnv)
      .description('NAME of the environment variable that holds the API key; an unset or empty variable fails the plugin start.'),
  }
}

/** Schema fields of `HttpTransportConfig`, for an adapter's `Schema.object`. */
export function httpTransportSchema(): {
  maxRetries: Schema<number>
  timeoutMs: Schema<number | undefined>
  idleTimeoutMs: Schema<number | undefined>
  headers: Schema<Record<string, string>>
} {
  return {
    maxRetries: Schema.natural().default(0).description('Retries the SDK makes on 408/409/429/5xx and connection errors.'),
    timeoutMs: Schema.number().min(1).max(MAX_TIMER_MS).default(DEFAULT_TIMEOUT_MS)
      .description('Milliseconds to wait for the response headers (per attempt); default 120 s.'),
    idleTimeoutMs: Schema.number().min(1).max(MAX_TIMER_MS).default(DEFAULT_IDLE_TIMEOUT_MS)
      .description('Milliseconds a started stream may stay silent between two events before the request fails; default 300 s.'),
    headers: Schema.dict(Schema.string()).default({}).description('Extra HTTP headers sent with every request (no credentials).'),
  }
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/
const CREDENTIAL_HEADERS = ['authorization', 'api-key', 'x-api-key']

/**
 * Checks what the schema cannot express about the endpoint keys (a real http(s) URL, a variable NAME);
 * throws what `invalid` builds, naming the bad key.
 */
export function checkHttpEndpoint(config: HttpEndpointConfig, invalid: (message: string) => Error): void {
  let url: URL | undefined
  try {
    url = new URL(config.baseURL)
  } catch {}
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw invalid(`baseURL must be an http(s) URL, got ${quote(config.baseURL)}`)
  }
  // Never echo the value: someone who put the key itself here must not see it printed back.
  if (typeof config.apiKeyEnv !== 'string' || !ENV_NAME.test(config.apiKeyEnv)) {
    throw invalid('apiKeyEnv must be the NAME of an environment variable (letters, digits and _, not starting with a digit), not the key itself')
  }
}

/**
 * Checks the transport keys (also for direct, non-Cordis callers): whole retries, a positive timeout, and
 * string headers that carry no credentials. Throws what `invalid` builds, naming the bad key.
 */
export function checkHttpTransport(config: HttpTransportConfig, invalid: (message: string) => Error): void {
  if (!Number.isInteger(config.maxRetries) || config.maxRetries < 0) {
    throw invalid(`maxRetries must be a whole number >= 0, got ${quote(config.maxRetries)}`)
  }
  if (config.timeoutMs !== undefined && !(typeof config.timeoutMs === 'number' && config.timeoutMs >= 1)) {
    throw invalid(`timeoutMs must be a number of milliseconds >= 1, got ${quote(config.timeoutMs)}`)
  }
  if (config.idleTimeoutMs !== undefined && !(typeof config.idleTimeoutMs === 'number' && config.idleTimeoutMs >= 1)) {
    throw invalid(`idleTimeoutMs must be a number of milliseconds >= 1, got ${quote(config.idleTimeoutMs)}`)
  }
  for (const [name, value] of Object.entries(config.headers)) {
    if (CREDENTIAL_HEADERS.includes(name.toLowerCase())) {
      throw invalid(`headers must not carry credentials (${quote(name)}); put the key in the environment variable named by apiKeyEnv`)
    }
    if (typeof value !== 'string') throw invalid(`header ${quote(name)} must be a string, got ${quote(value)}`)
  }
}
