import type { HttpEndpointConfig, HttpTransportConfig } from './config.ts'
import type { HttpAdapterErrorCode } from './error.ts'
import type { RequestSite } from './failures.ts'

/** What `lazyConnection` needs beside the config. */
export interface LazyConnectionOptions<C> {
  /** npm name of the adapter, named when the key is missing. */
  owner: string
  /** The full request URL, for failure messages. */
  url: string
  /** The package's error class, for `MISSING_API_KEY`. */
  AdapterError: new (code: HttpAdapterErrorCode, message: string) => Error
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
  const { owner, url, AdapterError } = options
  let connection: { client: C; apiKey: string } | undefined
  return (model) => {
    if (!connection) {
      const apiKey = process.env[apiKeyEnv]
      if (!apiKey) {
        const state = apiKey === undefined ? 'is not set' : 'is empty'
        throw new AdapterError('MISSING_API_KEY', `environment variable ${apiKeyEnv} ${state} (needed by ${owner} for model ${model})`)
      }
      connection = { client: options.createClient(apiKey), apiKey }
    }
    const { client, apiKey } = connection
    return { client, site: { url, model, apiKey, ...timeoutMs !== undefined && { timeoutMs } } }
  }
}
