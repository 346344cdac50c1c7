import { quote } from 'dsh-core'
import { TOOL_UPDATE_MODES, type ToolUpdateMode } from 'dsh-llm'
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
import { AnthropicAdapterError } from './errors.ts'

/** A served model and how its route takes mid-conversation tool changes. */
export interface AnthropicModel {
  id: string
  toolUpdate: ToolUpdateMode
  /** Context window in tokens. */
  contextWindow: number
}

/** Configuration of one Anthropic-Messages-compatible endpoint (Anthropic, DeepSeek's /anthropic, …). */
export interface AnthropicConfig extends HttpEndpointConfig, HttpTransportConfig {
  /** Model ids, or entries with a tool-update mode; ids alone get `DEFAULT_TOOL_UPDATE`. */
  models: (string | { id: string; toolUpdate?: ToolUpdateMode; contextWindow?: number })[]
  maxTokens: number
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
/** Context window of a model entry that sets none (Claude's 200K). */
export const DEFAULT_CONTEXT_WINDOW = 200_000
export const DEFAULT_TOOL_UPDATE_BETA = 'mid-conversation-tool-changes-2026-01-01'

const toolUpdate = Schema.union(['none', 'addition-only', 'in-history'] as const)

export const Config: Schema<AnthropicConfig> = Schema.object({
  ...httpEndpointSchema({
    baseURL: DEFAULT_BASE_URL,
    baseURLDescription: 'Base URL of the Messages API, without `/v1/messages` (DeepSeek: https://api.deepseek.com/anthropic).',
    apiKeyEnv: DEFAULT_API_KEY_ENV,
  }),
  models: Schema.array(Schema.union([
    Schema.string(),
    Schema.object({
      id: Schema.string().required().description('Model id.'),
      toolUpdate: toolUpdate.description(`How the route takes tool changes; default ${DEFAULT_TOOL_UPDATE}.`),
      contextWindow: Schema.natural().description(`Context window in tokens; default ${DEFAULT_CONTEXT_WINDOW}.`),
    }),
  ])).description('Model ids this endpoint serves (at least one), as strings or { id, toolUpdate, contextWindow }.'),
  maxTokens: Schema.natural().min(1).default(DEFAULT_MAX_TOKENS).description('max_tokens when the request sets none.'),
  ...httpTransportSchema(),
  toolUpdateBeta: Schema.string().default(DEFAULT_TOOL_UPDATE_BETA)
    .description('anthropic-beta value sent only on requests that carry tool_addition/tool_removal blocks; empty sends none.'),
})

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
    timeoutMs: input.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    idleTimeoutMs: input.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
  }
  checkHttpEndpoint(config, invalid)
  const models = resolveModels(input.models, invalid)
  if (!Number.isInteger(config.maxTokens) || config.maxTokens < 1) {
    throw invalid(`maxTokens must be a whole number >= 1, got ${quote(config.maxTokens)}`)
  }
  checkHttpTransport(config, invalid)
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
    const { id, toolUpdate = DEFAULT_TOOL_UPDATE, contextWindow = DEFAULT_CONTEXT_WINDOW } = typeof entry === 'string' ? { id: entry } : entry ?? {} as never
    if (typeof id !== 'string' || !id.trim()) throw invalid(`model ids must be non-empty strings, got ${quote(id)}`)
    if (seen.has(id)) throw invalid(`model ${quote(id)} is listed twice in models`)
    if (!TOOL_UPDATE_MODES.includes(toolUpdate)) {
      throw invalid(`model ${quote(id)} has toolUpdate ${quote(toolUpdate)}; valid: ${TOOL_UPDATE_MODES.join(', ')}`)
    }
    if (!Number.isSafeInteger(contextWindow) || contextWindow < 1) {
      throw invalid(`model ${quote(id)} has contextWindow ${quote(contextWindow)}; it must be a whole number of tokens >= 1`)
    }
    seen.add(id)
    return { id, toolUpdate, contextWindow }
  })
}
