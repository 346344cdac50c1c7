import Anthropic from '@anthropic-ai/sdk'
import type { ResolvedHttpAdapterConfig } from 'dsh-llm/http'

/** Creates the SDK client for one endpoint. Nothing is read from the environment or disk but the key given. */
export function createClient(config: ResolvedHttpAdapterConfig, apiKey: string): Anthropic {
  return new Anthropic({
    apiKey,
    // Explicit null so ANTHROPIC_AUTH_TOKEN in the environment is never consulted.
    authToken: null,
    baseURL: config.baseURL,
    maxRetries: config.maxRetries,
    ...config.timeoutMs !== undefined && { timeout: config.timeoutMs },
    defaultHeaders: config.headers,
    // The SDK would otherwise print raw stream chunks on parse errors; our errors carry what matters.
    logLevel: 'off',
    // Prompts stay out of tracing spans unless a deployment asks for that elsewhere.
    openTelemetry: false,
  })
}
