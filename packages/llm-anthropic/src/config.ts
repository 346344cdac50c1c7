import { quote } from 'dsh-core'
import {
  httpAdapterSchema, invalidConfig, resolveHttpAdapterConfig, type HttpAdapterConfig, type HttpAdapterDefaults, type ResolvedHttpAdapterConfig,
} from 'dsh-llm/http'
import Schema from 'schemastery'

/** Configuration of one Anthropic-Messages-compatible endpoint (Anthropic, DeepSeek's /anthropic, …). */
export interface AnthropicConfig extends HttpAdapterConfig {
  /** `max_tokens` of a request that sets none. */
  maxTokens: number
}

/** A config with defaults filled in and model entries normalized. */
export type ResolvedAnthropicConfig = ResolvedHttpAdapterConfig<AnthropicConfig>

export { DEFAULT_TOOL_UPDATE_BETA } from 'dsh-llm/http'
export const DEFAULT_MAX_TOKENS = 4096

export const OWNER = 'dsh-llm-anthropic'
const DEFAULTS: HttpAdapterDefaults = {
  owner: OWNER,
  baseURL: 'https://api.anthropic.com',
  apiKeyEnv: 'ANTHROPIC_API_KEY',
  baseURLDescription: 'Base URL of the Messages API, without `/v1/messages` (DeepSeek: https://api.deepseek.com/anthropic).',
  modelsExample: '[claude-sonnet-4-5] or [{ id: deepseek-chat, toolUpdate: addition-only }]',
  // Messages routes take tool_addition blocks, so an entry that says nothing announces additions.
  toolUpdate: () => 'addition-only',
  toolUpdateDescription: 'addition-only',
  // Claude's 200K.
  contextWindow: 200_000,
  toolUpdateBetaHeader: 'anthropic-beta',
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
