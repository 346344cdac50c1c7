import Schema from 'schemastery'
import { OpenAIAdapterError, quote } from './errors.ts'

/** Configuration of one OpenAI-compatible endpoint (OpenAI, DeepSeek, vLLM, llama.cpp, …). */
export interface OpenAIConfig {
  baseURL: string
  apiKeyEnv: string
  models: string[]
  maxRetries: number
  timeoutMs?: number
  headers: Record<string, string>
}

export const DEFAULT_BASE_URL = 'https://api.openai.com/v1'
export const DEFAULT_API_KEY_ENV = 'OPENAI_API_KEY'

export const Config: Schema<OpenAIConfig> = Schema.object({
  baseURL: Schema.string().default(DEFAULT_BASE_URL)
    .description('Base URL of the Chat Completions API, up to and without `/chat/completions`.'),
  apiKeyEnv: Schema.string().default(DEFAULT_API_KEY_ENV)
    .description('NAME of the environment variable that holds the API key; read at the first request.'),
  models: Schema.array(Schema.string()).description('Model ids this endpoint serves (at least one).'),
  maxRetries: Schema.natural().default(0).description('Retries the SDK makes on 408/409/429/5xx and connection errors.'),
  timeoutMs: Schema.union([Schema.number().min(1), Schema.const(undefined)])
    .description('Per-request timeout in milliseconds; omitted means the SDK default (10 minutes).'),
  headers: Schema.dict(Schema.string()).default({}).description('Extra HTTP headers sent with every request (no credentials).'),
})

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/
const CREDENTIAL_HEADERS = ['authorization', 'api-key', 'x-api-key']

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
    ...input.timeoutMs !== undefined && { timeoutMs: input.timeoutMs },
  }
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
  if (!Array.isArray(config.models) || config.models.length === 0) {
    throw invalid('models must list at least one model id, e.g. models: [deepseek-chat]')
  }
  const seen = new Set<string>()
  for (const model of config.models) {
    if (typeof model !== 'string' || !model.trim()) throw invalid(`model ids must be non-empty strings, got ${quote(model)}`)
    if (seen.has(model)) throw invalid(`model ${quote(model)} is listed twice in models`)
    seen.add(model)
  }
  if (!Number.isInteger(config.maxRetries) || config.maxRetries < 0) {
    throw invalid(`maxRetries must be a whole number >= 0, got ${quote(config.maxRetries)}`)
  }
  if (config.timeoutMs !== undefined && !(typeof config.timeoutMs === 'number' && config.timeoutMs >= 1)) {
    throw invalid(`timeoutMs must be a number of milliseconds >= 1, got ${quote(config.timeoutMs)}`)
  }
  for (const [name, value] of Object.entries(config.headers)) {
    if (CREDENTIAL_HEADERS.includes(name.toLowerCase())) {
      throw invalid(`headers must not carry credentials (${quote(name)}); put the key in the environment variable named by apiKeyEnv`)
    }
    if (typeof value !== 'string') throw invalid(`header ${quote(name)} must be a string, got ${quote(value)}`)
  }
  return config
}
