import Anthropic from '@anthropic-ai/sdk'
import type { ResolvedHttpAdapterConfig } from 'dsh-llm/http'
import { routeSdkWarnings } from './sdk-warnings.ts'

/**
 * Creates the SDK client for one endpoint. Nothing is read from the environment or disk but the key given.
 * The SDK's own warnings (a deprecated model) go to `warn`, once each, instead of stderr.
 */
export function createClient(config: ResolvedHttpAdapterConfig, apiKey: string, warn: (message: string) => void = () => {}): Anthropic {
  const client = new Anthropic({
    apiKey,
    // Explicit null so ANTHROPIC_AUTH_TOKEN in the environment is never consulted.
    authToken: null,
    baseURL: config.baseURL,
    maxRetries: config.maxRetries,
    ...config.timeoutMs !== undefined && { timeout: config.timeoutMs },
    defaultHeaders: config.headers,
    // The SDK would otherwise print raw stream chunks on parse errors; our errors carry what matters.
    logLevel: 'off',
    // Its warn-level lines, should a deployment raise the level, reach the adapter's logger, not stderr.
    logger: { error: warn, warn, info: () => {}, debug: () => {} },
    // Prompts stay out of tracing spans unless a deployment asks for that elsewhere.
    openTelemetry: false,
  })
  return routeSdkWarnings(client, warn)
}
