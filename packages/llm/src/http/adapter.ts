import { planCacheMarks, type CacheMarkPlan, type RequestMark } from '../cache-marks.ts'
import { projectToolUpdates, type ToolProjection } from '../projection.ts'
import type { GenerateOptions, LlmAdapter, StreamEvent, ToolUpdateMode } from '../types.ts'
import type { HttpAdapterConfig, HttpModel, ResolvedHttpAdapterConfig } from './adapter-config.ts'
import { DEFAULT_IDLE_TIMEOUT_MS } from './config.ts'
import { lazyConnection } from './connect.ts'
import { failureMapper, type FailureMapperSpec, type SdkApiError } from './failures.ts'
import { withIdleTimeout } from './idle-timeout.ts'
import { requestMarks, type WireMarkable } from './marks.ts'

/** Reads one response's stream units (chunks, events) into stream events. */
export interface WireStreamReader<Unit> {
  /** Units read so far (for error messages). */
  readonly received: number
  read(unit: Unit): StreamEvent[]
  /** The closing events; throws when the stream was cut short. */
  finish(): StreamEvent[]
}

/** A request body and whether it carries tool-update blocks (and so needs the beta header). */
export interface WireRequest<Body> {
  body: Body
  hasToolUpdates: boolean
  /** The beta value such a request needs when its profile names its own (Anthropic's); else the config's `toolUpdateBeta`. */
  beta?: string
}

/** The beta header value a request goes out with: its own `beta`, else `toolUpdateBeta`, and only when it carries tool-update blocks. */
export function requestBeta(request: WireRequest<unknown>, toolUpdateBeta: string): string | undefined {
  const beta = request.beta ?? toolUpdateBeta
  return request.hasToolUpdates && beta ? beta : undefined
}

/** Where an HTTP adapter says what a user should know: boot-time notices, the SDK's own warnings. */
export type AdapterWarn = (message: string) => void

/**
 * What one HTTP adapter package brings to the shared frame: its names, its config, its SDK and its wire
 * format. Everything else (key handling, cancellation, idle timeout, failure mapping, tool-update modes,
 * context windows) is the same for every HTTP adapter.
 */
export interface HttpAdapterDefinition<C extends ResolvedHttpAdapterConfig, Client, Body, Unit, A extends SdkApiError> {
  /** Provider id of the adapter (`openai`). */
  provider: string
  /** npm name of the adapter, named when the key is missing. */
  owner: string
  /** The request path after `baseURL` (`/chat/completions`). */
  path: string
  /** Fills defaults and checks the config; throws `INVALID_CONFIG` (see `resolveHttpAdapterConfig`). */
  resolveConfig(input: Partial<HttpAdapterConfig>): C
  /** How the SDK's errors read. */
  failures: FailureMapperSpec<A>
  /** Name of the header that carries `toolUpdateBeta`. */
  betaHeader(config: C): string
  /** The SDK client; `warn` takes what the SDK would print on its own (deprecation notices). */
  createClient(config: C, apiKey: string, warn: AdapterWarn): Client
  /**
   * The body of one request for `model` (undefined when the adapter does not serve it): a pure function of
   * its arguments, cache markers included, so a request rebuilt from the session log gives the same bytes.
   */
  buildRequest(options: GenerateOptions, projection: ToolProjection, config: C, model: HttpModel | undefined): WireRequest<Body>
  /**
   * What cache-marker planning reads of a built body (unmarked) for `model`, each block traced to its message
   * (`traceBlock`); undefined when this wire places no markers for the model's profile. With `applyMarks`,
   * the frame places the markers `planCacheMarks` plans from the model's cache policy, and the adapter's
   * `cacheMarks` reports them.
   */
  markable?(body: Body, model: HttpModel): WireMarkable | undefined
  /** The body with the markers of `plan` on it; pure, like `buildRequest`. */
  applyMarks?(body: Body, plan: CacheMarkPlan, model: HttpModel): Body
  /** Sends the streaming request; resolves once the response headers arrived. */
  send(client: Client, body: Body, init: { signal: AbortSignal; headers?: Record<string, string> }): Promise<AsyncIterable<Unit>>
  /** A fresh reader for one response to a request for `model` (its profile decides how usage reads). */
  reader(model: HttpModel | undefined): WireStreamReader<Unit>
}

/**
 * The body an adapter of `definition` configured by `input` sends for `options` (the request after its
 * tool-update projection and cache planning), without sending it: for reconstruction checks and for
 * checking bodies against a provider's own request types.
 */
export function httpWireBody<C extends ResolvedHttpAdapterConfig, Body>(
  definition: HttpAdapterDefinition<C, any, Body, any, any>,
  input: Partial<HttpAdapterConfig>,
  options: GenerateOptions,
): WireRequest<Body> {
  const config = definition.resolveConfig(input)
  const model = config.models.find((entry) => entry.id === options.model)
  return buildMarked(definition, options, config, model).request
}

/** A built request with its cache markers placed, and those markers in the request's own terms. */
interface MarkedRequest<Body> {
  request: WireRequest<Body>
  marks: readonly RequestMark[]
}

/** Builds the request for `options` (projection, then `buildRequest`) and places its planned cache markers. */
function buildMarked<C extends ResolvedHttpAdapterConfig, Body>(
  definition: HttpAdapterDefinition<C, any, Body, any, any>,
  options: GenerateOptions,
  config: C,
  model: HttpModel | undefined,
): MarkedRequest<Body> {
  const request = definition.buildRequest(options, projectToolUpdates(options, model?.toolUpdate ?? 'none'), config, model)
  if (!model || !definition.markable || !definition.applyMarks) return { request, marks: [] }
  const shape = definition.markable(request.body, model)
  if (!shape) return { request, marks: [] }
  const plan = planCacheMarks(model.cache, shape)
  const body = definition.applyMarks(request.body, plan, model)
  return { request: { ...request, body }, marks: Object.freeze(requestMarks(shape, plan, options.messages)) }
}

/**
 * An `LlmAdapter` for one HTTP endpoint of `definition`'s wire format, configured by `input`. Each model's
 * `toolUpdate` mode decides how tool changes are projected (`projectToolUpdates`); only requests that carry
 * tool-update blocks get the `<betaHeader>: <toolUpdateBeta>` header (or the request's own `beta`). Each model's
 * boot-time notice (a mode that fell back) goes to `warn` once, here. The API key is read at the first request
 * (`lazyConnection`); a stream silent for `idleTimeoutMs` is abandoned; every failure is an `HttpAdapterError`.
 */
export function createHttpAdapter<C extends ResolvedHttpAdapterConfig, Client, Body, Unit, A extends SdkApiError>(
  definition: HttpAdapterDefinition<C, Client, Body, Unit, A>,
  input: Partial<HttpAdapterConfig>,
  warn: AdapterWarn = () => {},
): LlmAdapter {
  const config = definition.resolveConfig(input)
  for (const model of config.models) if (model.notice) warn(model.notice)
  const betaHeader = definition.betaHeader(config)
  const models = new Map(config.models.map((model) => [model.id, model]))
  const modeOf = (model: string): ToolUpdateMode => models.get(model)?.toolUpdate ?? 'none'
  const idleMs = config.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS
  const failures = failureMapper(definition.failures)
  // the markers of each request sent, for the detector's question right after (options are frozen)
  const planned = new WeakMap<GenerateOptions, readonly RequestMark[]>()
  const connect = lazyConnection(config, {
    owner: definition.owner,
    url: `${config.baseURL.replace(/\/+$/, '')}${definition.path}`,
    createClient: (apiKey) => definition.createClient(config, apiKey, warn),
  })

  async function* stream(options: GenerateOptions): AsyncGenerator<StreamEvent, void, undefined> {
    const { signal, model } = options
    const { client, site } = connect(model)
    if (signal?.aborted) throw failures.cancelled(site)
    const { request, marks } = buildMarked(definition, options, config, models.get(model))
    planned.set(options, marks)
    const { body } = request
    const beta = requestBeta(request, config.toolUpdateBeta)
    const headers = beta ? { [betaHeader]: beta } : undefined
    // aborted by the caller's signal or by the idle timeout, whichever comes first
    const abandon = new AbortController()
    let units: AsyncIterable<Unit>
    try {
      units = await definition.send(client, body, {
        signal: signal ? AbortSignal.any([signal, abandon.signal]) : abandon.signal,
        ...headers && { headers },
      })
    } catch (error) {
      throw failures.requestFailure(error, site, signal)
    }
    const reader = definition.reader(models.get(model))
    const onStall = () => {
      abandon.abort()
      return failures.stalled(site, reader.received, idleMs)
    }
    try {
      for await (const unit of withIdleTimeout(units, idleMs, onStall)) yield* reader.read(unit)
      // The SDKs end the iteration quietly when the signal aborts mid-stream.
      if (signal?.aborted) throw failures.cancelled(site)
      yield* reader.finish()
    } catch (error) {
      throw failures.streamFailure(error, site, reader.received, signal)
    }
  }

  return {
    provider: definition.provider,
    models: [...models.keys()],
    toolUpdate: modeOf,
    contextWindow: (model) => models.get(model)?.contextWindow,
    cachePolicy: (model) => models.get(model)?.cache,
    affinity: (model) => models.get(model)?.affinity?.field,
    price: (model) => models.get(model)?.price,
    cacheMarks: (options) => planned.get(options) ?? buildMarked(definition, options, config, models.get(options.model)).marks,
    stream,
  }
}
