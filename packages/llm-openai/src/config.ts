import { quote } from 'dsh-core'
import {
  checkHttpEndpoint,
  checkHttpTransport,
  DEFAULT_IDLE_TIMEOUT_MS,
  DEFAULT_TIMEOUT_MS,
  httpEndpointSchema,
  httpTransportSchema,
  type HttpEndpointConfig,
  type HttpTransportConfig,
} from 'dsh-llm/http'
import Schema from 'schemastery'
import { OpenAIAdapterError } from './errors.ts'

/** A served model and its context window in tokens. */
export interface OpenAIModel {
  id: string
  contextWindow: number
}

/** Configuration of one OpenAI-compatible endpoint (OpenAI, DeepSeek, vLLM, llama.cpp, …). */
export interface OpenAIConfig extends HttpEndpointConfig, HttpTransportConfig {
  /** Model ids, or entries with a context window; ids alone get `DEFAULT_CONTEXT_WINDOW`. */
  models: (string | { id: string; contextWindow?: number })[]
}

/** A config with defaults filled in and model entries normalized. */
export interface ResolvedOpenAIConfig extends Omit<OpenAIConfig, 'models'> {
  models: OpenAIModel[]
}

export const DEFAULT_BASE_URL = 'https://api.openai.com/v1'
export const DEFAULT_API_KEY_ENV = 'OPENAI_API_KEY'
/** Context window of a model entry that sets none (DeepSeek's and GPT-4o's 128K). */
export const DEFAULT_CONTEXT_WINDOW = 128_000

export const Config: Schema<OpenAIConfig> = Schema.object({
  ...httpEndpointSchema({
    baseURL: DEFAULT_BASE_URL,
    baseURLDescription: 'Base URL of the Chat Completions API, up to and without `/chat/completions`.',
    apiKeyEnv: DEFAULT_API_KEY_ENV,
  }),
  models: Schema.array(Schema.union([
    Schema.string(),
    Schema.object({
      id: Schema.string().required().description('Model id.'),
      contextWindow: Schema.natural().description(`Context window in tokens; default ${DEFAULT_CONTEXT_WINDOW}.`),
    }),
  ])).description('Model ids this endpoint serves (at least one), as strings or { id, contextWindow }.'),
  ...httpTransportSchema(),
})

/**
 * Checks what the schema cannot express and fills defaults for direct (non-Cordis) callers.
 * Throws `INVALID_CONFIG` naming the bad key.
 */
export function resolveConfig(input: Partial<OpenAIConfig>): ResolvedOpenAIConfig {
  const invalid = (message: string) => new OpenAIAdapterError('INVALID_CONFIG', `dsh-llm-openai: ${message}`)
  const config = {
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
  const models: OpenAIModel[] = []
  for (const entry of config.models) {
    const { id, contextWindow = DEFAULT_CONTEXT_WINDOW } = typeof entry === 'string' ? { id: entry } : entry ?? {} as never
    if (typeof id !== 'string' || !id.trim()) throw invalid(`model ids must be non-empty strings, got ${quote(id)}`)
    if (models.some((model) => model.id === id)) throw invalid(`model ${quote(id)} is listed twice in models`)
    if (!Number.isSafeInteger(contextWindow) || contextWindow < 1) {
      throw invalid(`model ${quote(id)} has contextWindow ${quote(contextWindow)}; it must be a whole number of tokens >= 1`)
    }
    models.push({ id, contextWindow })
  }
  checkHttpTransport(config, invalid)
  return { ...config, models }
}
