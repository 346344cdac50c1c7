import { TOOL_UPDATE_MODES, type ToolUpdateMode } from 'dsh-llm'
import Schema from 'schemastery'
import { AnthropicAdapterError, quote } from './errors.ts'

/** A served model and how its route takes mid-conversation tool changes. */
export interface AnthropicModel {
  id: string
  toolUpdate: ToolUpdateMode
}

/** Configuration of one Anthropic-Messages-compatible endpoint (Anthropic, DeepSeek's /anthropic, …). */
export interface AnthropicConfig {
  baseURL: string
  apiKeyEnv: string
  /** Model ids, or entries with a tool-update mode; ids alone get `DEFAULT_TOOL_UPDATE`. */
  models: (string | { id: string; toolUpdate?: ToolUpdateMode })[]
  maxTokens: number
  maxRetries: number
  timeoutMs?: number
  headers: Record<string, string>
  toolUpdateBeta: string
}

/** A config with defaults filled in and model entries normalized. */
export interface ResolvedAnthropicConfig extends Omit<AnthropicConfig, 'models'> {
  models: AnthropicModel[]
}

export const DEFAULT_BASE_URL = 'https://api.anthropic.com'
export const DEFAULT_API_KEY_ENV = 'ANTHROPIC_API_KEY'
export const DEFAULT_MAX_TOKENS = 4096
export const DEFAULT_TOOL_UPDATE: ToolUpdateMode = 'addition-only'
export const DEFAULT_TOOL_UPDATE_BETA = 'mid-conversation-tool-changes-2026-01-01'

const toolUpdate = Schema.union(['none', 'addition-only', 'in-history'] as const)

export const Config: Schema<AnthropicConfig> = Schema.object({
  baseURL: Schema.string().default(DEFAULT_BASE_URL)
    .description('Base URL of the Messages API, without `/v1/messages` (DeepSeek: https://api.deepseek.com/anthropic).'),
  apiKeyEnv: Schema.string().default(DEFAULT_API_KEY_ENV)
    .description('NAME of the environment variable that holds the API key; read at the first request.'),
  models: Schema.array(Schema.union([
    Schema.string(),
    Schema.object({
      id: Schema.string().required().description('Model id.'),
      toolUpdate: toolUpdate.description(`How the route takes tool changes; default ${DEFAULT_TOOL_UPDATE}.`),
    }),
  ])).description('Model ids this endpoint serves (at least one), as strings or { id, toolUpdate }.'),
  maxTokens: Schema.natural().min(1).default(DEFAULT_MAX_TOKENS).description('max_tokens when the request sets none.'),
  maxRetries: Schema.natural().default(0).description('Retries the SDK makes on 408/409/429/5xx and connection errors.'),
  timeoutMs: Schema.union([Schema.number().min(1), Schema.const(undefined)])
    .description('Per-request timeout in milliseconds; omitted means the SDK default (10 minutes).'),
  headers: Schema.dict(Schema.string()).default({}).description('Extra HTTP headers sent with every request (no credentials).'),
  toolUpdateBeta: Schema.string().default(DEFAULT_TOOL_UPDATE_BETA)
    .description('anthropic-beta value sent only on requests that carry tool_addition/tool_removal blocks; empty sends none.'),
})

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/
const CREDENTIAL_HEADERS = ['authorization', 'api-key', 'x-api-key']
// A header value is one line of visible ASCII: anything else would be refused by fetch at request time.
const HEADER_VALUE = /^[\x20-\x7e]*$/

/**
 * Checks what the schema cannot express, fills defaults for direct (non-Cordis) callers and normalizes
 * model entries. Throws `INVALID_CONFIG` naming the bad key.
 */
export function resolveConfig(input: Partial<AnthropicConfig>): ResolvedAnthropicConfig {
  const invalid = (message: string) => new AnthropicAdapterError('INVALID_CONFIG', `dsh-llm-anthropic: ${message}`)
  const config = {
    baseURL: input.baseURL ?? DEFAULT_BASE_URL,
    apiKeyEnv: input.apiKeyEnv ?? DEFAULT_API_KEY_ENV,
    maxTokens: input.maxTokens ?? DEFAULT_MAX_TOKENS,
    maxRetries: input.maxRetries ?? 0,
    headers: input.headers ?? {},
    toolUpdateBeta: input.toolUpdateBeta ?? DEFAULT_TOOL_UPDATE_BETA,
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
  const models = resolveModels(input.models, invalid)
  if (!Number.isInteger(config.maxTokens) || config.maxTokens < 1) {
    throw invalid(`maxTokens must be a whole number >= 1, got ${quote(config.maxTokens)}`)
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
  if (typeof config.toolUpdateBeta !== 'string' || !HEADER_VALUE.test(config.toolUpdateBeta)) {
    throw invalid(`toolUpdateBeta must be a header value of visible ASCII characters, got ${quote(config.toolUpdateBeta)}`)
  }
  return { ...config, models }
}

function resolveModels(input: AnthropicConfig['models'] | undefined, invalid: (message: string) => Error): AnthropicModel[] {
  if (!Array.isArray(input) || input.length === 0) {
    throw invalid('models must list at least one model, e.g. models: [claude-sonnet-4-5] or [{ id: deepseek-chat, toolUpdate: addition-only }]')
  }
  const seen = new Set<string>()
  return input.map((entry) => {
    const { id, toolUpdate = DEFAULT_TOOL_UPDATE } = typeof entry === 'string' ? { id: entry } : entry ?? {} as never
    if (typeof id !== 'string' || !id.trim()) throw invalid(`model ids must be non-empty strings, got ${quote(id)}`)
    if (seen.has(id)) throw invalid(`model ${quote(id)} is listed twice in models`)
    if (!TOOL_UPDATE_MODES.includes(toolUpdate)) {
      throw invalid(`model ${quote(id)} has toolUpdate ${quote(toolUpdate)}; valid: ${TOOL_UPDATE_MODES.join(', ')}`)
    }
    seen.add(id)
    return { id, toolUpdate }
  })
}
