import type { ResolvedHttpAdapterConfig } from 'dsh-llm/http'
import OpenAI from 'openai'

/**
 * The SDK client with one change: an HTTP error keeps the whole parsed body as `body`, because the SDK
 * keeps only `body.error` and servers like vLLM put their message at the top level.
 */
class ChatClient extends OpenAI {
  protected override makeStatusError(status: number, error: object, message: string | undefined, headers: Headers) {
    const failure = super.makeStatusError(status, error, message, headers)
    Object.defineProperty(failure, 'body', { value: error ?? message, enumerable: false })
    return failure
  }
}

/** Creates the SDK client for one endpoint. Nothing is read from the environment but the key given. */
export function createClient(config: ResolvedHttpAdapterConfig, apiKey: string): OpenAI {
  return new ChatClient({
    apiKey,
    baseURL: config.baseURL,
    // Explicit nulls so OPENAI_ORG_ID / OPENAI_PROJECT_ID in the environment never leak into requests.
    organization: null,
    project: null,
    webhookSecret: null,
    maxRetries: config.maxRetries,
    ...config.timeoutMs !== undefined && { timeout: config.timeoutMs },
    defaultHeaders: config.headers,
    // The SDK would otherwise print raw stream chunks on parse errors; our errors carry what matters.
    logLevel: 'off',
  })
}
