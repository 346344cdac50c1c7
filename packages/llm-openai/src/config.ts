import {
  checkHttpEndpoint,
  checkHttpTransport,
  DEFAULT_IDLE_TIMEOUT_MS,
  DEFAULT_TIMEOUT_MS,
  httpEndpointSchema,
  httpTransportSchema,
  quoteValue,
  type HttpEndpointConfig,
  type HttpTransportConfig,
} from 'dsh-llm'
import Schema from 'schemastery'
import { OpenAIAdapterError } from './errors.ts'

/** Configuration of one OpenAI-compatible endpoint (OpenAI, DeepSeek, vLLM, llama.cpp, …). */
export interface OpenAIConfig extends HttpEndpointConfig, HttpTransportConfig {
  models: string[]
}

export const DEFAULT_BASE_URL = 'https://api.openai.com/v1'
export const DEFAULT_API_KEY_ENV = 'OPENAI_API_KEY'

export const Config: Schema<OpenAIConfig> = Schema.object({
  ...httpEndpointSchema({
    baseURL: DEFAULT_BASE_URL,
    baseURLDescription: 'Base URL of the Chat Completions API, up to and without `/chat/completions`.',
    apiKeyEnv: DEFAULT_API_KEY_ENV,
  }),
  models: Schema.array(Schema.string()).description('Model ids this endpoint serves (at least one).'),
  ...httpTransportSchema(),
})

/**
 * Checks what the schema cannot express and fills defaults for direct (non-Cordis) callers.
 * Throws `INVALID_CONFIG` naming the bad key.
 */
export function resolveConfig(input: Partial<OpenAIConfig>): OpenAIConfig {
  const invalid = (message: string) => new OpenAIAdapterError('INVALID_CONFIG', `dsh-llm-openai: ${message}`)
  const config: OpenAIConfig = {
    baseURL: input.baseURL ?? DEFAULT_BASE_URL,
    apiKeyEnv: input.apiKeyEnv ?? DEFAULT_API_KEY_ENV,
    models: input.models ?? [],
    maxRetries: input.maxRetries ?? 0,
    headers: input.headers ?? {},
    timeoutMs: input.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    idleTimeoutMs: input.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
  }
  checkHttpEndpoint(config, invalid)
  if (!Array.isArray(config.models) || config.models.length === 0) {
    throw invalid('models must list at least one model id, e.g. models: [deepseek-chat]')
  }
  const seen = new Set<string>()
  for (const model of config.models) {
    if (typeof model !== 'string' || !model.trim()) throw invalid(`model ids must be non-empty strings, got ${quoteValue(model)}`)
    if (seen.has(model)) throw invalid(`model ${quoteValue(model)} is listed twice in models`)
    seen.add(model)
  }
  checkHttpTransport(config, invalid)
  return config
}
