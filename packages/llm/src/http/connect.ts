import { listNames } from 'dsh-core'
import type { HttpEndpointConfig, HttpTransportConfig } from './config.ts'
import { HttpAdapterError } from './error.ts'
import type { RequestSite } from './failures.ts'

/** What `lazyConnection` needs beside the config. */
export interface LazyConnectionOptions<C> {
  /** npm name of the adapter, named when the key is missing. */
  owner: string
  /** The full request URL, for failure messages. */
  url: string
  createClient(apiKey: string): C
}

/**
 * Returns `connect(model)`: it reads the API key from the variable `apiKeyEnv` names at the first request
 * (not at construction), so a missing key fails the request that needs it before anything is sent, and
 * builds the SDK client once. Each call also gives the request's `RequestSite`.
 */
export function lazyConnection<C>(
  config: Pick<HttpEndpointConfig, 'apiKeyEnv'> & Pick<HttpTransportConfig, 'timeoutMs'>,
  options: LazyConnectionOptions<C>,
): (model: string) => { client: C; site: RequestSite } {
  const { apiKeyEnv, timeoutMs } = config
  const { owner, url } = options
  let connection: { client: C; apiKey: string } | undefined
  return (model) => {
    if (!connection) {
      const apiKey = readApiKey(apiKeyEnv)
      if (!apiKey) {
        const state = apiKey === undefined ? 'is not set' : 'is empty'
        throw new HttpAdapterError('MISSING_API_KEY', `environment variable ${apiKeyEnv} ${state} (needed by ${owner} for model ${model})`)
      }
      connection = { client: options.createClient(apiKey), apiKey }
    }
    const { client, apiKey } = connection
    return { client, site: { url, model, apiKey, ...timeoutMs !== undefined && { timeoutMs } } }
  }
}

/**
 * The key in the variable, trimmed: a key copied with a trailing space or read from a CRLF `.env` would
 * be trimmed by the SDK anyway, and it is the trimmed form that is sent, echoed back and must be redacted.
 */
function readApiKey(apiKeyEnv: string): string | undefined {
  return process.env[apiKeyEnv]?.trim()
}

/**
 * Fails the plugin's start when the variable `apiKeyEnv` names is unset or empty, so a missing key stops
 * the boot (one line naming the variable, the entry and its models) instead of the first turn.
 */
export function requireApiKey(
  apiKeyEnv: string,
  options: { owner: string; models: readonly string[] },
): void {
  const value = readApiKey(apiKeyEnv)
  if (value) return
  const state = value === undefined ? 'is not set' : 'is empty'
  const models = listNames(options.models)
  throw new HttpAdapterError('MISSING_API_KEY',
    `environment variable ${apiKeyEnv} ${state} (needed by ${options.owner} for ${options.models.length === 1 ? 'model' : 'models'} ${models}); export it, or disable this entry`)
}
