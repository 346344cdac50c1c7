import { quote } from 'dsh-core'
import type { ToolUpdateMode } from 'dsh-llm'
import {
  httpAdapterSchema, invalidConfig, resolveHttpAdapterConfig, type HttpAdapterConfig, type HttpModel, type ResolvedHttpAdapterConfig,
} from 'dsh-llm/http'
import Schema from 'schemastery'

/** A served model, how its route takes mid-conversation tool changes, and its context window in tokens. */
export type AnthropicModel = HttpModel

/** Configuration of one Anthropic-Messages-compatible endpoint (Anthropic, DeepSeek's /anthropic, …). */
export interface AnthropicConfig extends HttpAdapterConfig {
  /** `max_tokens` of a request that sets none. */
  maxTokens: number
}

/** A config with defaults filled in and model entries normalized. */
export interface ResolvedAnthropicConfig extends ResolvedHttpAdapterConfig {
  maxTokens: number
}

export const DEFAULT_BASE_URL = 'https://api.anthropic.com'
export const DEFAULT_API_KEY_ENV = 'ANTHROPIC_API_KEY'
export const DEFAULT_MAX_TOKENS = 4096
export const DEFAULT_TOOL_UPDATE: ToolUpdateMode = 'addition-only'
/** Context window of a model entry that sets none (Claude's 200K). */
export const DEFAULT_CONTEXT_WINDOW = 200_000
export const DEFAULT_TOOL_UPDATE_BETA = 'mid-conversation-tool-changes-2026-01-01'

const OWNER = 'dsh-llm-anthropic'
const DEFAULTS = {
  owner: OWNER,
  baseURL: DEFAULT_BASE_URL,
  baseURLDescription: 'Base URL of the Messages API, without `/v1/messages` (DeepSeek: https://api.deepseek.com/anthropic).',
  apiKeyEnv: DEFAULT_API_KEY_ENV,
  // Every entry announces tool changes unless it says otherwise: Anthropic-compatible routes take the blocks.
  toolUpdate: () => DEFAULT_TOOL_UPDATE,
  toolUpdateDescription: DEFAULT_TOOL_UPDATE,
  contextWindow: DEFAULT_CONTEXT_WINDOW,
  toolUpdateBeta: DEFAULT_TOOL_UPDATE_BETA,
  toolUpdateBetaHeader: 'anthropic-beta',
  modelsExample: '[claude-sonnet-4-5] or [{ id: deepseek-chat, toolUpdate: addition-only }]',
}

export const Config: Schema<AnthropicConfig> = Schema.object({
  ...httpAdapterSchema(DEFAULTS),
  maxTokens: Schema.natural().min(1).default(DEFAULT_MAX_TOKENS).description('max_tokens when the request sets none.'),
})

/**
 * Checks what the schema cannot express, fills defaults for direct (non-Cordis) callers and normalizes
 * model entries. Throws `INVALID_CONFIG` naming the bad key.
 */
export function resolveConfig(input: Partial<AnthropicConfig>): ResolvedAnthropicConfig {
  const shared = resolveHttpAdapterConfig(input, DEFAULTS)
  const maxTokens = input.maxTokens ?? DEFAULT_MAX_TOKENS
  if (!Number.isInteger(maxTokens) || maxTokens < 1) {
    throw invalidConfig(OWNER)(`maxTokens must be a whole number >= 1, got ${quote(maxTokens)}`)
  }
  return { ...shared, maxTokens }
}
