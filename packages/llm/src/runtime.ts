import { compareCodeUnits, listNames, messageOf, rawService, deepFreeze, type Usage } from 'dsh-core'
import { Context, Service } from 'cordis'
import { collect, type CollectedResponse } from './collect.ts'
import { LlmError } from './error.ts'
import { guardStream } from './guard.ts'
import { TOOL_UPDATE_MODES } from './projection.ts'
import type { GenerateOptions, LlmAdapter, StopReason, StreamEvent, ToolUpdateMode } from './types.ts'
import { defaultCachePolicy } from './profiles/resolve.ts'
import type { ModelCachePolicy } from './profiles/types.ts'
import { entryPrice, type ModelPrice } from './profiles/prices.ts'
import { requestCost, type RequestCost } from './cost.ts'
import type { RequestMark } from './cache-marks.ts'
import { emptyUsage } from './usage.ts'

declare module 'cordis' {
  interface Context {
    llm: LlmRuntime
  }

  interface Events {
    /** `emit`: the frozen options are about to be dispatched to `provider`'s adapter. */
    'llm/request'(options: GenerateOptions, provider: string): void
    /** `emit`: the response to `options` completed; `usage` is zeros when the provider reported none. */
    'llm/response'(options: GenerateOptions, usage: Usage, info: LlmResponseInfo): void
  }
}

/** Details of a completed response, beside its usage. */
export interface LlmResponseInfo {
  provider: string
  stopReason: StopReason
  /** False when the adapter sent no usage event and `usage` is the zero record. */
  usageReported: boolean
}

/**
 * One model's route, resolved once: the adapter serving it and what that adapter declares. A caller that
 * asks several things of one model in a row (its window, then a request) resolves it once this way.
 */
export interface LlmRoute {
  readonly model: string
  readonly adapter: LlmAdapter
  /** The context window of the route's model, as `LlmRuntime.contextWindow`. */
  contextWindow(): number | undefined
  /** The cache markers the route's request for `options` carries, as `LlmRuntime.cacheMarks`. */
  cacheMarks(options: GenerateOptions): readonly RequestMark[]
  /**
   * Streams as `LlmRuntime.stream`, through the route's adapter while it still serves `options.model`;
   * a request for a model it does not serve (or sent after the adapter left) is resolved afresh.
   */
  stream(options: GenerateOptions): AsyncIterable<StreamEvent>
}

/** The model registry and streaming front of `dsh-llm` (ctx key `llm`). */
export class LlmRuntime extends Service {
  private readonly adapters = new Map<string, LlmAdapter>()
  // Resolved once: reading a property through a Cordis context builds proxies, and this runs per request.
  private readonly emit: Context['emit']
  private readonly logger: ReturnType<Context['logger']>

  constructor(ctx: Context) {
    super(ctx, 'llm')
    this.emit = ctx.emit
    this.logger = ctx.logger('llm')
  }

  /**
   * Serves `adapter.models` through `adapter`. Returns the disposer; the registration also ends with the
   * calling plugin. A model id another adapter already serves is refused.
   */
  register(adapter: LlmAdapter): () => Promise<void> {
    const models = checkAdapter(adapter)
    for (const model of models) {
      const current = this.adapters.get(model)
      if (current) {
        throw new LlmError('DUPLICATE_MODEL', `model "${model}" is already served by provider "${current.provider}"; provider "${adapter.provider}" cannot serve it too`, {
          provider: adapter.provider, model,
        })
      }
    }
    return this.ctx.effect(() => {
      for (const model of models) this.adapters.set(model, adapter)
      return () => {
        for (const model of models) {
          if (this.adapters.get(model) === adapter) this.adapters.delete(model)
        }
      }
    }, `llm.register(${adapter.provider})`)
  }

  /** The adapter serving `model`; throws `UNKNOWN_MODEL` listing the served ids. */
  resolve(model: string): LlmAdapter {
    const self = rawService(this)
    const adapter = self.adapters.get(model)
    if (adapter) return adapter
    const served = self.models()
    throw new LlmError('UNKNOWN_MODEL', `unknown model ${JSON.stringify(model)}; served models: ${served.length ? listNames(served) : '(none registered)'}`, {
      model,
    })
  }

  /** The route serving `model` (see `LlmRoute`); throws as `resolve`. */
  route(model: string): LlmRoute {
    const self = rawService(this)
    const adapter = self.resolve(model)
    return {
      model,
      adapter,
      contextWindow: () => windowOf(adapter, model),
      cacheMarks: (options) => adapter.cacheMarks?.(options) ?? [],
      stream: (options) => {
        deepFreeze(options)
        return self.dispatch(options, adapter)
      },
    }
  }

  /** Served model ids, sorted by code units so the list never depends on registration timing. */
  models(): string[] {
    return [...this.adapters.keys()].sort(compareCodeUnits)
  }

  /** The tool-update capability of the route serving `model` (`none` unless the adapter declares one). */
  toolUpdateMode(model: string): ToolUpdateMode {
    const adapter = this.resolve(model)
    const declared = typeof adapter.toolUpdate === 'function' ? adapter.toolUpdate(model) : adapter.toolUpdate
    const mode = declared ?? 'none'
    if (!TOOL_UPDATE_MODES.includes(mode)) {
      throw new LlmError('INVALID_TOOL_UPDATE', `provider "${adapter.provider}" declares tool-update mode ${JSON.stringify(mode)} for model "${model}"; valid: ${TOOL_UPDATE_MODES.join(', ')}`, {
        provider: adapter.provider, model,
      })
    }
    return mode
  }

  /**
   * How requests for `model` use the provider's prompt cache: its profile (mechanism, granularity, minimum,
   * lifetimes), the lifetime its entry asks for and its minimum cacheable length. Models whose adapter
   * declares no policy get the generic profile.
   */
  cachePolicy(model: string): ModelCachePolicy {
    return this.resolve(model).cachePolicy?.(model) ?? defaultCachePolicy(model)
  }

  /**
   * What `model`'s tokens cost, in USD per million tokens, with the page and date the figures come from: its
   * adapter's (an HTTP model's profile price, or its entry's `price`). Undefined when the model has no price
   * or is not served: show tokens only, never a guessed number.
   */
  price(model: string): ModelPrice | undefined {
    const adapter = rawService(this).adapters.get(model)
    return adapter?.price?.(model)
  }

  /**
   * What one response of `model` cost at `price(model)` (`RequestCost`: billed, without a cache, and with
   * `missedTokens` what a break cost over a full hit); undefined when the model has no price. Cache writes
   * are priced at the one-hour rate when the model's requests ask for a one-hour lifetime.
   */
  cost(model: string, usage: Usage, missedTokens?: number): RequestCost | undefined {
    const self = rawService(this)
    const price = self.price(model)
    if (!price) return undefined
    const oneHourWrites = self.adapters.get(model)?.cachePolicy?.(model)?.ttl.name === '1h'
    return requestCost(usage, price, { oneHourWrites, ...missedTokens !== undefined && { missedTokens } })
  }

  /**
   * The cache markers the request for `options` carries on the wire (`planCacheMarks` applied by its
   * route's adapter): none when the adapter places none. Throws `UNKNOWN_MODEL` as `resolve`.
   */
  cacheMarks(options: GenerateOptions): readonly RequestMark[] {
    return this.resolve(options.model).cacheMarks?.(options) ?? []
  }

  /**
   * The context window of `model` in tokens, as its adapter declares it; undefined when the adapter
   * declares none (callers then cannot tell how full a request is).
   */
  contextWindow(model: string): number | undefined {
    return windowOf(this.resolve(model), model)
  }

  /**
   * Streams a model response. `options` is deep-frozen in place right away (its AbortSignal excepted);
   * the stream then emits `llm/request`, dispatches to the adapter and enforces the stream contract.
   * An aborted signal makes the stream throw `LlmError` with code `CANCELLED`.
   */
  stream(options: GenerateOptions): AsyncIterable<StreamEvent> {
    deepFreeze(options)
    return rawService(this).dispatch(options)
  }

  /** Streams and collects one response (see `collect`). */
  generate(options: GenerateOptions): Promise<CollectedResponse> {
    return collect(rawService(this).stream(options))
  }

  private async* dispatch(options: GenerateOptions, resolved?: LlmAdapter): AsyncGenerator<StreamEvent, void, undefined> {
    const adapter = resolved !== undefined && this.adapters.get(options.model) === resolved ? resolved : this.resolve(options.model)
    this.notify(() => this.emit('llm/request', options, adapter.provider))
    yield* guardStream(adapter, options, ({ usage, stopReason }) => {
      const info: LlmResponseInfo = { provider: adapter.provider, stopReason, usageReported: usage !== undefined }
      this.notify(() => this.emit('llm/response', options, usage ?? emptyUsage(), info))
    })
  }

  // Observers watch requests; a broken observer must not fail the request it watches.
  private notify(emit: () => void) {
    try {
      emit()
    } catch (error) {
      this.logger.warn(`an llm event listener threw: ${messageOf(error)}`)
    }
  }
}

export default LlmRuntime

/** The context window `adapter` declares for `model`, checked. */
function windowOf(adapter: LlmAdapter, model: string): number | undefined {
  const declared = typeof adapter.contextWindow === 'function' ? adapter.contextWindow(model) : adapter.contextWindow
  if (declared === undefined) return undefined
  if (!Number.isSafeInteger(declared) || declared < 1) {
    throw new LlmError('INVALID_ADAPTER', `provider "${adapter.provider}" declares context window ${JSON.stringify(declared)} for model "${model}"; it must be a whole number of tokens >= 1`, {
      provider: adapter.provider, model,
    })
  }
  return declared
}

function checkAdapter(adapter: LlmAdapter): string[] {
  const provider = adapter?.provider
  if (typeof provider !== 'string' || !provider) {
    throw new LlmError('INVALID_ADAPTER', `adapter provider must be a non-empty string, got ${JSON.stringify(provider)}`)
  }
  const invalid = (message: string) => new LlmError('INVALID_ADAPTER', `adapter "${provider}": ${message}`, { provider })
  if (typeof adapter.stream !== 'function') throw invalid('stream must be a function')
  if (!Array.isArray(adapter.models) || !adapter.models.length) throw invalid('models must be a non-empty array of model ids')
  const models = [...adapter.models]
  const seen = new Set<string>()
  for (const model of models) {
    if (typeof model !== 'string' || !model) throw invalid(`model ids must be non-empty strings, got ${JSON.stringify(model)}`)
    if (seen.has(model)) throw invalid(`model "${model}" is listed twice`)
    seen.add(model)
  }
  const { toolUpdate } = adapter
  if (toolUpdate !== undefined && typeof toolUpdate !== 'function' && !TOOL_UPDATE_MODES.includes(toolUpdate)) {
    throw invalid(`toolUpdate ${JSON.stringify(toolUpdate)} is not a mode; valid: ${TOOL_UPDATE_MODES.join(', ')}`)
  }
  const { contextWindow } = adapter
  if (contextWindow !== undefined && typeof contextWindow !== 'function' && !(Number.isSafeInteger(contextWindow) && contextWindow >= 1)) {
    throw invalid(`contextWindow ${JSON.stringify(contextWindow)} must be a whole number of tokens >= 1 or a function of the model id`)
  }
  if (adapter.price !== undefined && typeof adapter.price !== 'function') throw invalid('price must be a function of the model id')
  // a price that is not one (negative, not a number) would print nonsense money: refused when served
  for (const model of models) {
    try {
      entryPrice(adapter.price?.(model), undefined)
    } catch (error) {
      throw invalid(`model "${model}" has ${(error as Error).message}`)
    }
  }
  return models
}
