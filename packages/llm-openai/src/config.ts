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
import { OpenAIAdapterError } from './errors.ts'

/** A served model, how its route takes mid-conversation tool changes, and its context window in tokens. */
export interface OpenAIModel {
  id: string
  toolUpdate: ToolUpdateMode
  contextWindow: number
}

/** Configuration of one OpenAI-compatible endpoint (OpenAI, DeepSeek, vLLM, llama.cpp, …). */
export interface OpenAIConfig extends HttpEndpointConfig, HttpTransportConfig {
  /** Model ids, or entries with a tool-update mode and a context window; see `defaultToolUpdate`. */
  models: (string | { id: string; toolUpdate?: ToolUpdateMode; contextWindow?: number })[]
  /** Sent as `<toolUpdateBetaHeader>: <toolUpdateBeta>` only on requests carrying tool-update blocks. */
  toolUpdateBeta: string
  toolUpdateBetaHeader: string
}

/** A config with defaults filled in and model entries normalized. */
export interface ResolvedOpenAIConfig extends Omit<OpenAIConfig, 'models'> {
  models: OpenAIModel[]
}

export const DEFAULT_BASE_URL = 'https://api.openai.com/v1'
export const DEFAULT_API_KEY_ENV = 'OPENAI_API_KEY'
/** Context window of a model entry that sets none (DeepSeek's and GPT-4o's 128K). */
export const DEFAULT_CONTEXT_WINDOW = 128_000
export const DEFAULT_TOOL_UPDATE_BETA = 'mid-conversation-tool-changes-2026-01-01'
export const DEFAULT_TOOL_UPDATE_BETA_HEADER = 'anthropic-beta'

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

const toolUpdate = Schema.union(['none', 'addition-only', 'in-history'] as const)
// A header name is an HTTP token; a value is one line of visible ASCII (fetch refuses anything else).
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/
const HEADER_VALUE = /^[\x20-\x7e]*$/

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
      toolUpdate: toolUpdate.description('How the route takes tool changes; default addition-only for deepseek-flash, none otherwise.'),
      contextWindow: Schema.natural().description(`Context window in tokens; default ${DEFAULT_CONTEXT_WINDOW}.`),
    }),
  ])).description('Model ids this endpoint serves (at least one), as strings or { id, toolUpdate, contextWindow }.'),
  ...httpTransportSchema(),
  toolUpdateBeta: Schema.string().default(DEFAULT_TOOL_UPDATE_BETA)
    .description('Beta value sent only on requests that carry tool_addition/tool_removal blocks; empty sends none.'),
  toolUpdateBetaHeader: Schema.string().default(DEFAULT_TOOL_UPDATE_BETA_HEADER)
    .description('Name of the header that carries toolUpdateBeta.'),
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
    toolUpdateBeta: input.toolUpdateBeta ?? DEFAULT_TOOL_UPDATE_BETA,
    toolUpdateBetaHeader: input.toolUpdateBetaHeader ?? DEFAULT_TOOL_UPDATE_BETA_HEADER,
    timeoutMs: input.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    idleTimeoutMs: input.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
  }
  checkHttpEndpoint(config, invalid)
  if (!Array.isArray(config.models) || config.models.length === 0) {
    throw invalid('models must list at least one model id, e.g. models: [deepseek-chat]')
  }
  const models: OpenAIModel[] = []
  for (const entry of config.models) {
    const { id, toolUpdate: mode, contextWindow = DEFAULT_CONTEXT_WINDOW } = typeof entry === 'string' ? { id: entry } : entry ?? {} as never
    if (typeof id !== 'string' || !id.trim()) throw invalid(`model ids must be non-empty strings, got ${quote(id)}`)
    if (models.some((model) => model.id === id)) throw invalid(`model ${quote(id)} is listed twice in models`)
    const toolUpdate = mode ?? defaultToolUpdate(id)
    if (!TOOL_UPDATE_MODES.includes(toolUpdate)) {
      throw invalid(`model ${quote(id)} has toolUpdate ${quote(toolUpdate)}; valid: ${TOOL_UPDATE_MODES.join(', ')}`)
    }
    if (!Number.isSafeInteger(contextWindow) || contextWindow < 1) {
      throw invalid(`model ${quote(id)} has contextWindow ${quote(contextWindow)}; it must be a whole number of tokens >= 1`)
    }
    models.push({ id, toolUpdate, contextWindow })
  }
  checkHttpTransport(config, invalid)
  if (typeof config.toolUpdateBeta !== 'string' || !HEADER_VALUE.test(config.toolUpdateBeta)) {
    throw invalid(`toolUpdateBeta must be a header value of visible ASCII characters, got ${quote(config.toolUpdateBeta)}`)
  }
  if (typeof config.toolUpdateBetaHeader !== 'string' || !HEADER_NAME.test(config.toolUpdateBetaHeader)) {
    throw invalid(`toolUpdateBetaHeader must be an HTTP header name (letters, digits, - and token signs), got ${quote(config.toolUpdateBetaHeader)}`)
  }
  return { ...config, models }
}
