import { projectToolUpdates, type ToolProjection } from '../projection.ts'
import type { GenerateOptions, LlmAdapter, StreamEvent, ToolUpdateMode } from '../types.ts'
import type { ResolvedHttpAdapterConfig } from './adapter-config.ts'
import { DEFAULT_IDLE_TIMEOUT_MS } from './config.ts'
import { lazyConnection } from './connect.ts'
import { failureMapper, type FailureMapperSpec, type SdkApiError } from './failures.ts'
import { withIdleTimeout } from './idle-timeout.ts'

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
}

/** What a wire format brings to `createHttpAdapter`: everything else is the same for every HTTP adapter. */
export interface HttpWireFormat<Client, Body, Unit, A extends SdkApiError> {
  /** Provider id of the adapter (`openai`). */
  provider: string
  /** npm name of the adapter, named when the key is missing. */
  owner: string
  /** The request path after `baseURL` (`/chat/completions`). */
  path: string
  /** How the SDK's errors read. */
  failures: FailureMapperSpec<A>
  /** Name of the header that carries `toolUpdateBeta`. */
  betaHeader: string
  createClient(apiKey: string): Client
  buildRequest(options: GenerateOptions, projection: ToolProjection): WireRequest<Body>
  /** Sends the streaming request; resolves once the response headers arrived. */
  send(client: Client, body: Body, init: { signal: AbortSignal; headers?: Record<string, string> }): Promise<AsyncIterable<Unit>>
  /** A fresh reader for one response. */
  reader(): WireStreamReader<Unit>
}

/**
 * An `LlmAdapter` for one HTTP endpoint of `wire`'s format. Each model's `toolUpdate` mode decides how tool
 * changes are projected (`projectToolUpdates`); only requests that carry tool-update blocks get the
 * `<betaHeader>: <toolUpdateBeta>` header. The API key is read at the first request (`lazyConnection`); a
 * stream silent for `idleTimeoutMs` is abandoned, and every failure is an `HttpAdapterError`.
 */
export function createHttpAdapter<Client, Body, Unit, A extends SdkApiError>(
  config: ResolvedHttpAdapterConfig,
  wire: HttpWireFormat<Client, Body, Unit, A>,
): LlmAdapter {
  const modes = new Map(config.models.map((model) => [model.id, model.toolUpdate]))
  const modeOf = (model: string): ToolUpdateMode => modes.get(model) ?? 'none'
  const idleMs = config.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS
  const failures = failureMapper(wire.failures)
  const connect = lazyConnection(config, {
    owner: wire.owner,
    url: `${config.baseURL.replace(/\/+$/, '')}${wire.path}`,
    createClient: wire.createClient,
  })

  async function* stream(options: GenerateOptions): AsyncGenerator<StreamEvent, void, undefined> {
    const { signal, model } = options
    const { client, site } = connect(model)
    if (signal?.aborted) throw failures.cancelled(site)
    const { body, hasToolUpdates } = wire.buildRequest(options, projectToolUpdates(options, modeOf(model)))
    const headers = hasToolUpdates && config.toolUpdateBeta ? { [wire.betaHeader]: config.toolUpdateBeta } : undefined
    // aborted by the caller's signal or by the idle timeout, whichever comes first
    const abandon = new AbortController()
    let units: AsyncIterable<Unit>
    try {
      units = await wire.send(client, body, {
        signal: signal ? AbortSignal.any([signal, abandon.signal]) : abandon.signal,
        ...headers && { headers },
      })
    } catch (error) {
      throw failures.requestFailure(error, site, signal)
    }
    const reader = wire.reader()
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

  const windows = new Map(config.models.map((model) => [model.id, model.contextWindow]))
  return {
    provider: wire.provider,
    models: config.models.map((model) => model.id),
    toolUpdate: modeOf,
    contextWindow: (model) => windows.get(model),
    stream,
  }
}
