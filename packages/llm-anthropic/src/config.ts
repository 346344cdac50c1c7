import { httpAdapterConfig, type HttpAdapterConfig } from 'dsh-llm/http'
import Schema from 'schemastery'

/** Configuration of one Anthropic-Messages-compatible endpoint (Anthropic, DeepSeek's /anthropic, …). */
export interface AnthropicConfig extends HttpAdapterConfig {
  /** `max_tokens` of a request that sets none. */
  maxTokens: number
}

const DEFAULT_MAX_TOKENS = 4096

/** The `Config` schema and `resolveConfig` (defaults and checks for direct, non-Cordis callers; throws `INVALID_CONFIG`). */
export const { Config, resolveConfig } = httpAdapterConfig<AnthropicConfig>({
  owner: 'dsh-llm-anthropic',
  baseURL: 'https://api.anthropic.com',
  baseURLDescription: 'Base URL of the Messages API, without `/v1/messages` (DeepSeek: https://api.deepseek.com/anthropic).',
  apiKeyEnv: 'ANTHROPIC_API_KEY',
  // DeepSeek's Messages route takes tool_addition blocks on every model, so an entry there that says nothing
  // announces additions; Anthropic's own API takes them on some models only (an entry asks for them by
  // toolUpdate), generic servers on none.
  toolUpdate: (_id, profile) => (profile.toolUpdates.includes('addition-only') && !profile.toolChanges ? 'addition-only' : profile.defaultToolUpdate),
  toolUpdateDescription: 'addition-only on the deepseek profile, append otherwise',
  // Claude's window.
  contextWindow: 200_000,
  betaHeaderName: 'anthropic-beta',
  modelsExample: '[claude-sonnet-4-5] or [{ id: claude-opus-5-5, toolUpdate: addition-only }]',
}, {
  maxTokens: {
    schema: Schema.natural().min(1).default(DEFAULT_MAX_TOKENS).description('max_tokens when the request sets none.'),
    default: DEFAULT_MAX_TOKENS,
    accepts: (value) => Number.isInteger(value) && (value as number) >= 1,
    requirement: 'must be a whole number >= 1',
  },
})
