import type { PROFILES, ProviderId, ToolUpdateMode } from 'dsh-llm'
import { httpAdapterConfig, type HttpAdapterConfig } from 'dsh-llm/http'
import Schema from 'schemastery'

/** A provider profile of dsh-llm's catalog. */
export type ProviderProfile = (typeof PROFILES)[ProviderId]

/** Configuration of one OpenAI-compatible endpoint (OpenAI, DeepSeek, vLLM, llama.cpp, …). */
export interface OpenAIConfig extends HttpAdapterConfig {
  /** Sent as `<toolUpdateBetaHeader>: <toolUpdateBeta>` only on requests carrying tool-update blocks. */
  toolUpdateBetaHeader: string
  /** How the openai profile's `prompt_cache_key` is derived (see `PROMPT_CACHE_KEYS`). */
  promptCacheKey: PromptCacheKeyMode
}

/**
 * `prefix` (the default): a hash of the canonical tools and system prompt, so every session with the same
 * prefix routes to the same cache machines, new and resumed ones included; `session`: that hash plus the
 * conversation's first message, one key per conversation; `off`: no key.
 */
export type PromptCacheKeyMode = 'prefix' | 'session' | 'off'
export const PROMPT_CACHE_KEYS: readonly PromptCacheKeyMode[] = ['prefix', 'session', 'off']

/** Context window of a model entry that sets none (DeepSeek's and GPT-4o's 128K). */
export const DEFAULT_CONTEXT_WINDOW = 128_000
/** The header that carries `toolUpdateBeta` unless `toolUpdateBetaHeader` names another. */
export const DEFAULT_TOOL_UPDATE_BETA_HEADER = 'anthropic-beta'

/**
 * Model ids whose route announces tool changes in history when their entry sets no `toolUpdate`:
 * DeepSeek's default `deepseek-flash` takes `tool_addition` blocks, on the deepseek profile
 * (.agents/notes/implemented/feature/2026-11-30-effective-tool-header.md). Every other entry gets its
 * profile's default (`append`): OpenAI, vLLM and llama.cpp serve plain Chat Completions.
 */
export const KNOWN_TOOL_UPDATE: Readonly<Record<string, ToolUpdateMode>> = Object.freeze({ 'deepseek-flash': 'addition-only' })

/** The tool-update mode of a model entry that sets none: its known mode where its profile takes it, else the profile's default. */
export function defaultToolUpdate(id: string, profile: ProviderProfile): ToolUpdateMode {
  const known = Object.hasOwn(KNOWN_TOOL_UPDATE, id) ? KNOWN_TOOL_UPDATE[id]! : undefined
  return known && profile.toolUpdates.includes(known) ? known : profile.defaultToolUpdate
}

// A header name is an HTTP token (fetch refuses anything else).
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/

/** The `Config` schema and `resolveConfig` (defaults and checks for direct, non-Cordis callers; throws `INVALID_CONFIG`). */
export const { Config, resolveConfig } = httpAdapterConfig<OpenAIConfig>({
  owner: 'dsh-llm-openai',
  baseURL: 'https://api.openai.com/v1',
  baseURLDescription: 'Base URL of the Chat Completions API, up to and without `/chat/completions`.',
  apiKeyEnv: 'OPENAI_API_KEY',
  toolUpdate: defaultToolUpdate,
  toolUpdateDescription: 'addition-only for deepseek-flash on the deepseek profile, append otherwise',
  contextWindow: DEFAULT_CONTEXT_WINDOW,
  betaHeaderName: 'The toolUpdateBetaHeader',
  modelsExample: '[deepseek-chat]',
  affinity: true,
}, {
  promptCacheKey: {
    schema: Schema.union(PROMPT_CACHE_KEYS).default('prefix')
      .description('prompt_cache_key on the openai profile: prefix (hash of tools + system), session (plus the first message) or off.'),
    default: 'prefix',
    accepts: (value) => (PROMPT_CACHE_KEYS as readonly unknown[]).includes(value),
    requirement: `must be one of ${PROMPT_CACHE_KEYS.join(', ')}`,
  },
  toolUpdateBetaHeader: {
    schema: Schema.string().default(DEFAULT_TOOL_UPDATE_BETA_HEADER).description('Name of the header that carries toolUpdateBeta.'),
    default: DEFAULT_TOOL_UPDATE_BETA_HEADER,
    accepts: (value) => typeof value === 'string' && HEADER_NAME.test(value),
    requirement: 'must be an HTTP header name (letters, digits, - and token signs)',
  },
})
