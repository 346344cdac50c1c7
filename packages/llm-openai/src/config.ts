import { quote } from 'dsh-core'
import type { ToolUpdateMode } from 'dsh-llm'
import {
  httpAdapterSchema, invalidConfig, resolveHttpAdapterConfig, type HttpAdapterConfig, type HttpAdapterDefaults, type ResolvedHttpAdapterConfig,
} from 'dsh-llm/http'
import Schema from 'schemastery'

/** Configuration of one OpenAI-compatible endpoint (OpenAI, DeepSeek, vLLM, llama.cpp, …). */
export interface OpenAIConfig extends HttpAdapterConfig {
  /** Sent as `<toolUpdateBetaHeader>: <toolUpdateBeta>` only on requests carrying tool-update blocks. */
  toolUpdateBetaHeader: string
}

/** A config with defaults filled in and model entries normalized. */
export type ResolvedOpenAIConfig = ResolvedHttpAdapterConfig<OpenAIConfig>

/** Context window of a model entry that sets none (DeepSeek's and GPT-4o's 128K). */
export const DEFAULT_CONTEXT_WINDOW = 128_000
/** The header that carries `toolUpdateBeta` unless `toolUpdateBetaHeader` names another. */
export const DEFAULT_TOOL_UPDATE_BETA_HEADER = 'anthropic-beta'
export { DEFAULT_TOOL_UPDATE_BETA } from 'dsh-llm/http'

/**
 * Model ids whose route announces tool changes in history when their entry sets no `toolUpdate`:
 * DeepSeek's default `deepseek-flash` takes `tool_addition` blocks (seed 002). Every other id declares
 * no mode (`none`), as OpenAI, vLLM and llama.cpp serve plain Chat Completions.
 */
export const KNOWN_TOOL_UPDATE: Readonly<Record<string, ToolUpdateMode>> = Object.freeze({ 'deepseek-flash': 'addition-only' })

/** The tool-update mode of a model entry that sets none. */
export function defaultToolUpdate(id: string): ToolUpdateMode {
  return Object.hasOwn(KNOWN_TOOL_UPDATE, id) ? KNOWN_TOOL_UPDATE[id]! : 'none'
}

export const OWNER = 'dsh-llm-openai'
const DEFAULTS: HttpAdapterDefaults = {
  owner: OWNER,
  baseURL: 'https://api.openai.com/v1',
  apiKeyEnv: 'OPENAI_API_KEY',
  baseURLDescription: 'Base URL of the Chat Completions API, up to and without `/chat/completions`.',
  modelsExample: '[deepseek-chat]',
  toolUpdate: defaultToolUpdate,
  toolUpdateDescription: 'addition-only for deepseek-flash, none otherwise',
  contextWindow: DEFAULT_CONTEXT_WINDOW,
  toolUpdateBetaHeader: 'The toolUpdateBetaHeader',
}
// A header name is an HTTP token (fetch refuses anything else).
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/

export const Config: Schema<OpenAIConfig> = Schema.object({
  ...httpAdapterSchema(DEFAULTS),
  toolUpdateBetaHeader: Schema.string().default(DEFAULT_TOOL_UPDATE_BETA_HEADER)
    .description('Name of the header that carries toolUpdateBeta.'),
})

/**
 * Checks what the schema cannot express and fills defaults for direct (non-Cordis) callers.
 * Throws `INVALID_CONFIG` naming the bad key.
 */
export function resolveConfig(input: Partial<OpenAIConfig>): ResolvedOpenAIConfig {
  const shared = resolveHttpAdapterConfig(input, DEFAULTS)
  const toolUpdateBetaHeader = input.toolUpdateBetaHeader ?? DEFAULT_TOOL_UPDATE_BETA_HEADER
  if (typeof toolUpdateBetaHeader !== 'string' || !HEADER_NAME.test(toolUpdateBetaHeader)) {
    throw invalidConfig(OWNER)(`toolUpdateBetaHeader must be an HTTP header name (letters, digits, - and token signs), got ${quote(toolUpdateBetaHeader)}`)
  }
  return { ...shared, toolUpdateBetaHeader }
}
