import { quote, type ConfigInput } from 'dsh-core'
import Schema from 'schemastery'
import { TOOL_UPDATE_MODES } from '../projection.ts'
import { PROVIDER_IDS } from '../profiles/catalog.ts'
import { cachePolicy, isProviderId, resolveProfile, toolUpdateRefusal } from '../profiles/resolve.ts'
import { entryPrice, listedPrice, type ModelPrice } from '../profiles/prices.ts'
import type { ModelCachePolicy, ProviderId, ProviderProfile } from '../profiles/types.ts'
import type { ToolUpdateMode } from '../types.ts'
import {
  checkHttpEndpoint,
  checkHttpTransport,
  DEFAULT_IDLE_TIMEOUT_MS,
  DEFAULT_TIMEOUT_MS,
  httpEndpointSchema,
  httpTransportSchema,
  type HttpEndpointConfig,
  type HttpEndpointDefaults,
  type HttpTransportConfig,
} from './config.ts'
import { HttpAdapterError } from './error.ts'
import { resolveAffinity, type ModelAffinity } from './affinity.ts'
import { keepaliveSchema, resolveKeepalive, type KeepaliveEntry } from './keepalive-config.ts'

/**
 * A model as configured: its id alone, or with its provider profile, how its route takes tool changes, its
 * context window and the cache lifetime its requests ask for.
 */
export type HttpModelEntry = string | {
  id: string; provider?: ProviderId; toolUpdate?: ToolUpdateMode; toolChanges?: boolean; contextWindow?: number; cacheTtl?: string; cacheBreakpoints?: boolean; diagnostics?: boolean
  /** Overrides the profile's price of the model key by key (`ModelPrice`, USD per million tokens). */
  price?: Partial<ModelPrice>
  keepalive?: KeepaliveEntry
  affinity?: ModelAffinity
}

/** A served model with its defaults filled in: profile, tool-update mode, context window in tokens, cache policy. */
export interface HttpModel {
  id: string
  profile: ProviderProfile
  /** The entry's own `cacheTtl`, when it names one (the wire then asks for it explicitly). */
  cacheTtl?: string
  toolUpdate: ToolUpdateMode
  contextWindow: number
  cache: ModelCachePolicy
  /** What the model's tokens cost: the entry's `price` over the profile's; undefined when neither has one. */
  price?: ModelPrice
  /** Set when the entry's `toolUpdate` fell back (see `ToolChangeModels`): the one-line notice to log at boot. */
  notice?: string
  /** The local engine's slot or session field the requests pin by (`ModelAffinity`), when the entry names one. */
  affinity?: ModelAffinity
  /** Set when the requests ask the provider for its cache verdict (Anthropic's cache diagnostics; the anthropic profile only, on unless the entry says `diagnostics: false`). */
  diagnostics?: true
}

/** The config keys every HTTP adapter has; an adapter's own `Config` adds its wire's keys. */
export interface HttpAdapterConfig extends HttpEndpointConfig, HttpTransportConfig {
  /** Model ids, or entries with a provider, a tool-update mode, a context window and a cache lifetime. */
  models: HttpModelEntry[]
  /** The provider profile of every entry that names none; omitted ⇒ the one of the endpoint's host. */
  provider?: ProviderId
  /** Beta value sent only on requests that carry tool-update blocks; empty sends none. */
  toolUpdateBeta: string
}

/** A config (the shared keys by default) with defaults filled in and model entries normalized. */
export type ResolvedHttpAdapterConfig<C extends HttpAdapterConfig = HttpAdapterConfig> = Omit<C, 'models'> & { models: HttpModel[] }

/**
 * The value of the beta header on requests that carry tool-update blocks (DSH's mid-conversation tool
 * changes), the same for every wire format that takes them.
 */
export const DEFAULT_TOOL_UPDATE_BETA = 'mid-conversation-tool-changes-2026-01-01'

/** An adapter's own defaults and wording for the shared keys. */
export interface HttpAdapterDefaults extends HttpEndpointDefaults {
  /** npm name of the adapter, which starts every config error. */
  owner: string
  /** The tool-update mode of an entry that sets none, under the entry's profile. */
  toolUpdate(id: string, profile: ProviderProfile): ToolUpdateMode
  /** Says which mode `toolUpdate` gives, for the schema (`addition-only`). */
  toolUpdateDescription: string
  /** Context window of an entry that sets none. */
  contextWindow: number
  /** Names the header the beta value travels in, for the schema. */
  betaHeaderName: string
  /** A `models` value shown when the list is missing or empty. */
  modelsExample: string
  /** Whether the wire sends an entry's `affinity` field (Chat Completions does); entries naming one are refused otherwise. */
  affinity?: boolean
}

/** The tool-update modes as a schema, listed in `TOOL_UPDATE_MODES` order. */
const toolUpdateSchema = Schema.union(['none', 'append', 'addition-only', 'in-history'] as const)
const providerSchema = Schema.union(PROVIDER_IDS)
// A header value is one line of visible ASCII: anything else would be refused by fetch at request time.
const HEADER_VALUE = /^[\x20-\x7e]*$/

/** One schema per key of `HttpAdapterConfig`. */
export type HttpAdapterSchemaFields = { [K in keyof HttpAdapterConfig]-?: Schema<HttpAdapterConfig[K]> }

/** Schema fields of `HttpAdapterConfig`, for an adapter's `Schema.object` (its own keys follow). */
export function httpAdapterSchema(defaults: HttpAdapterDefaults): HttpAdapterSchemaFields {
  return {
    ...httpEndpointSchema(defaults),
    models: Schema.array(Schema.union([
      Schema.string(),
      Schema.object({
        id: Schema.string().required().description('Model id.'),
        provider: providerSchema.description('The provider profile of this model; default the adapter\'s provider, else the one of the baseURL host.'),
        toolUpdate: toolUpdateSchema.description(`How the route takes tool changes; default ${defaults.toolUpdateDescription}.`),
        toolChanges: Schema.boolean().description('Whether the model takes tool_addition / tool_removal blocks; default the profile\'s list of models (anthropic: Claude Opus 4.8, Opus 5, Opus 5.5, Sonnet 5.5, Haiku 5.5, Fable 5 / 5.1, Mythos 5 / 5.1).'),
        contextWindow: Schema.natural().description(`Context window in tokens; default ${defaults.contextWindow}.`),
        cacheTtl: Schema.string().description('Cache lifetime the requests ask for, one the profile offers (anthropic: 5m | 1h; openai: in-memory | 24h, 30m on breakpoint models).'),
        cacheBreakpoints: Schema.boolean().description('openai profile: whether the requests place explicit prompt_cache_breakpoints; default true from GPT-5.6 on.'),
        // checked by resolveConfig, so a bad price is refused in one line naming the key (not as a failed union)
        price: Schema.any().description('{ input, output, cacheRead, cacheWrite, cacheWrite1h?, source?, date? } in USD per million tokens; overrides the profile\'s price of the model key by key.'),
        // checked by resolveAffinity, so a bad value gets its one-line refusal rather than a schema message; in a
        // union, so an entry without it stays without it (a bare object schema would fill in {})
        affinity: (Schema.union([Schema.object({ field: Schema.string(), slots: Schema.number() })]) as unknown as Schema<ModelAffinity>)
          .description('generic profile, local engines: the request field that pins a session line — { field: id_slot, slots: N } (llama.cpp), { field: session_id } (SGLang), { field: cache_salt } (vLLM).'),
        diagnostics: Schema.boolean().description('anthropic profile: whether the requests ask for the provider\'s cache verdict (diagnostics.previous_message_id); default true.'),
        keepalive: keepaliveSchema,
      }),
    ])).description('Model ids this endpoint serves (at least one), as strings or { id, provider, toolUpdate, contextWindow, cacheTtl }.'),
    provider: providerSchema.description('The provider profile (anthropic, openai, deepseek, dashscope, generic); omitted ⇒ from the baseURL host.'),
    ...httpTransportSchema(),
    toolUpdateBeta: Schema.string().default(DEFAULT_TOOL_UPDATE_BETA)
      .description(`${defaults.betaHeaderName} value sent only on requests that carry tool_addition/tool_removal blocks; empty sends none.`),
  }
}

/** Builds the `INVALID_CONFIG` error of the adapter `owner`, naming it first. */
export function invalidConfig(owner: string): (message: string) => HttpAdapterError {
  return (message) => new HttpAdapterError('INVALID_CONFIG', `${owner}: ${message}`)
}

/**
 * Fills the shared keys' defaults for direct (non-Cordis) callers, normalizes model entries and checks what
 * the schema cannot express. Throws `INVALID_CONFIG` naming the bad key.
 */
export function resolveHttpAdapterConfig(input: Partial<HttpAdapterConfig>, defaults: HttpAdapterDefaults): ResolvedHttpAdapterConfig {
  const invalid = invalidConfig(defaults.owner)
  const config = {
    baseURL: input.baseURL ?? defaults.baseURL,
    apiKeyEnv: input.apiKeyEnv ?? defaults.apiKeyEnv,
    maxRetries: input.maxRetries ?? 0,
    headers: input.headers ?? {},
    toolUpdateBeta: input.toolUpdateBeta ?? DEFAULT_TOOL_UPDATE_BETA,
    timeoutMs: input.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    idleTimeoutMs: input.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
  }
  checkHttpEndpoint(config, invalid)
  if (input.provider !== undefined && !isProviderId(input.provider)) {
    throw invalid(`provider ${quote(input.provider)} is not a profile; valid: ${PROVIDER_IDS.join(', ')}`)
  }
  const models = resolveModels(input.models, config.baseURL, input.provider, defaults, invalid)
  checkHttpTransport(config, invalid)
  if (typeof config.toolUpdateBeta !== 'string' || !HEADER_VALUE.test(config.toolUpdateBeta)) {
    throw invalid(`toolUpdateBeta must be a header value of visible ASCII characters, got ${quote(config.toolUpdateBeta)}`)
  }
  return { ...config, ...input.provider !== undefined && { provider: input.provider }, models }
}

function resolveModels(
  input: HttpModelEntry[] | undefined,
  baseURL: string,
  provider: ProviderId | undefined,
  defaults: HttpAdapterDefaults,
  invalid: (message: string) => Error,
): HttpModel[] {
  if (!Array.isArray(input) || input.length === 0) {
    throw invalid(`models must list at least one model id, e.g. models: ${defaults.modelsExample}`)
  }
  const seen = new Set<string>()
  return input.map((entry) => {
    const { id, toolUpdate, toolChanges, contextWindow = defaults.contextWindow, cacheTtl, cacheBreakpoints, diagnostics, keepalive, provider: own, price: priceInput, affinity: pin } = typeof entry === 'string' ? { id: entry } : entry ?? {} as never
    if (typeof id !== 'string' || !id.trim()) throw invalid(`model ids must be non-empty strings, got ${quote(id)}`)
    if (seen.has(id)) throw invalid(`model ${quote(id)} is listed twice in models`)
    if (own !== undefined && !isProviderId(own)) {
      throw invalid(`model ${quote(id)} has provider ${quote(own)}, which is not a profile; valid: ${PROVIDER_IDS.join(', ')}`)
    }
    const profile = resolveProfile(baseURL, own, provider)
    const asked = toolUpdate ?? defaults.toolUpdate(id, profile)
    if (!TOOL_UPDATE_MODES.includes(asked)) {
      throw invalid(`model ${quote(id)} has toolUpdate ${quote(asked)}; valid: ${TOOL_UPDATE_MODES.join(', ')}`)
    }
    if (toolChanges !== undefined && typeof toolChanges !== 'boolean') {
      throw invalid(`model ${quote(id)} has toolChanges ${quote(toolChanges)}; it must be true or false`)
    }
    const refusal = toolUpdateRefusal(profile, asked)
    if (refusal) throw invalid(`model ${quote(id)} has toolUpdate ${quote(asked)}, but ${refusal}`)
    const { mode, notice } = toolChangeFallback(profile, id, asked, toolChanges, defaults.owner)
    if (cacheTtl !== undefined && typeof cacheTtl !== 'string') throw invalid(`model ${quote(id)} has cacheTtl ${quote(cacheTtl)}; it must be a string`)
    if (cacheBreakpoints !== undefined && typeof cacheBreakpoints !== 'boolean') {
      throw invalid(`model ${quote(id)} has cacheBreakpoints ${quote(cacheBreakpoints)}; it must be true or false`)
    }
    let cache: ModelCachePolicy
    try {
      cache = cachePolicy(profile, id, cacheTtl, cacheBreakpoints)
    } catch (error) {
      throw invalid(`model ${quote(id)} has ${(error as Error).message}`)
    }
    if (!Number.isSafeInteger(contextWindow) || contextWindow < 1) {
      throw invalid(`model ${quote(id)} has contextWindow ${quote(contextWindow)}; it must be a whole number of tokens >= 1`)
    }
    if (diagnostics !== undefined && typeof diagnostics !== 'boolean') throw invalid(`model ${quote(id)} has diagnostics ${quote(diagnostics)}; it must be true or false`)
    if (diagnostics === true && profile.id !== 'anthropic') {
      throw invalid(`model ${quote(id)} has diagnostics true, but the ${profile.id} profile's provider documents no cache diagnostics; only entries on the anthropic profile take the key`)
    }
    let price: ModelPrice | undefined
    try {
      price = entryPrice(priceInput, listedPrice(profile.prices, id))
    } catch (error) {
      throw invalid(`model ${quote(id)} has ${(error as Error).message}`)
    }
    const affinity = resolveAffinity(id, pin, profile, defaults.affinity === true, defaults.owner, invalid)
    seen.add(id)
    const asks = profile.id === 'anthropic' && diagnostics !== false
    const kept = resolveKeepalive(keepalive, id, cache, price !== undefined, invalid)
    if (kept) cache = { ...cache, keepalive: kept }
    return { id, profile, toolUpdate: mode, contextWindow, cache, ...price && { price }, ...cacheTtl !== undefined && { cacheTtl }, ...notice && { notice }, ...asks && { diagnostics: true as const }, ...affinity && { affinity } }
  })
}

/**
 * The mode a model gets for the `asked` one: `asked`, unless it needs tool-change blocks the model does not
 * take (by the entry's `toolChanges`, else the profile's list), in which case the profile's fallback and a notice.
 */
function toolChangeFallback(profile: ProviderProfile, id: string, asked: ToolUpdateMode, toolChanges: boolean | undefined, owner: string) {
  const facts = profile.toolChanges
  if (!facts || !facts.modes.includes(asked) || (toolChanges ?? facts.models.test(id))) return { mode: asked }
  const why = toolChanges === false ? 'its entry sets toolChanges: false' : `${facts.documented} (set toolChanges: true on the entry to send them anyway)`
  return {
    mode: facts.fallback,
    notice: `${owner}: model ${quote(id)} asks for toolUpdate ${quote(asked)}, but it does not take tool_addition / tool_removal blocks: ${why}; it uses ${facts.fallback} instead`,
  }
}

/** A key an adapter adds to the shared ones: its schema, its default for direct callers, and what the schema cannot check. */
export interface HttpAdapterOwnKey<T> {
  schema: Schema<T>
  default: T
  /** Whether `value` is acceptable; when not, the refusal says `<key> <requirement>, got <value>`. */
  accepts(value: unknown): boolean
  requirement: string
}

/** The adapter's own keys of `C`, beside the shared ones. */
export type HttpAdapterOwnKeys<C extends HttpAdapterConfig> = { [K in Exclude<keyof C, keyof HttpAdapterConfig>]: HttpAdapterOwnKey<C[K]> }

/**
 * An adapter's `Config` schema (the shared keys, then its own) and its `resolveConfig` for direct (non-Cordis)
 * callers, which fills defaults and throws `INVALID_CONFIG` naming the bad key.
 */
export function httpAdapterConfig<C extends HttpAdapterConfig>(defaults: HttpAdapterDefaults, own: HttpAdapterOwnKeys<C>): {
  Config: Schema<ConfigInput<C, 'models'>, C>
  resolveConfig(input: Partial<C>): ResolvedHttpAdapterConfig<C>
} {
  const keys = Object.keys(own) as (keyof typeof own)[]
  const schemas = Object.fromEntries(keys.map((key) => [key, own[key].schema]))
  const invalid = invalidConfig(defaults.owner)
  return {
    Config: Schema.object({ ...httpAdapterSchema(defaults), ...schemas }) as unknown as Schema<ConfigInput<C, 'models'>, C>,
    resolveConfig(input) {
      const shared = resolveHttpAdapterConfig(input, defaults)
      const values = Object.fromEntries(keys.map((key) => {
        const { default: fallback, accepts, requirement } = own[key]
        const value = (input as Record<keyof typeof own, unknown>)[key] ?? fallback
        if (!accepts(value)) throw invalid(`${String(key)} ${requirement}, got ${quote(value)}`)
        return [key, value]
      }))
      return { ...shared, ...values } as ResolvedHttpAdapterConfig<C>
    },
  }
}
