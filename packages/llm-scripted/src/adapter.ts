import type { ToolCall, ToolSchema, Usage } from 'dsh-core'
import { normalizeUsage, projectToolUpdates, type GenerateOptions, type LlmAdapter, type StreamEvent, type ToolUpdateMode } from 'dsh-llm'
import { echoReply } from './echo.ts'
import type { ModelPrice } from './plugin.ts'
import { LlmScriptedError } from './error.ts'
import { EmulatedCache, type ScriptedRequest } from './emulated-cache.ts'
import type { Reply } from './reply.ts'
import type { Script } from './script.ts'
import { compactionReply, isCompactionRequest } from './summary.ts'

/** One tool declaration of a request, as dsh-llm's projection lists it. */
type ToolDeclaration = ReturnType<typeof projectToolUpdates>['declarations'][number]

/** What a scripted adapter serves and how it answers. */
export interface ScriptedAdapterOptions {
  models: string[]
  toolUpdate: ToolUpdateMode
  /** Context window per model id, in estimated tokens; models left out declare none. */
  contextWindows?: Record<string, number>
  /**
   * What each model's (emulated) tokens cost, as its entry gives it; models left out have no price. The
   * `source` defaults to the app file; `ctx.llm.register` refuses a price that is not one.
   */
  prices?: Record<string, unknown>
  /** Play these replies one per call instead of echoing. */
  script?: Script
  /** The file that keeps the emulated prompt cache between processes; without one each process starts cold. */
  cacheFile?: string
}

const DELTAS_PER_TEXT = 3


/** The price an entry gave `model`, its source the app file unless it names one; undefined without one. */
function priceOf(prices: Record<string, unknown> | undefined, model: string): ModelPrice | undefined {
  const price = prices && Object.hasOwn(prices, model) ? prices[model] : undefined
  if (!price || typeof price !== 'object' || Array.isArray(price)) return price as ModelPrice | undefined
  return { source: 'the app file', ...price } as ModelPrice
}

/** Builds the offline `scripted` adapter: deterministic, no network. */
export function createScriptedAdapter(config: ScriptedAdapterOptions): LlmAdapter {
  let calls = 0
  const cache = new EmulatedCache(config.cacheFile)
  return {
    provider: 'scripted',
    models: [...config.models],
    toolUpdate: config.toolUpdate,
    contextWindow: (model) => config.contextWindows?.[model],
    price: (model) => priceOf(config.prices, model),
    stream(options) {
      // Calls are numbered when requested, not when first read, so script order is call order.
      return respond(++calls, options, config, cache)
    },
  }
}

async function* respond(call: number, options: GenerateOptions, config: ScriptedAdapterOptions, cache: EmulatedCache): AsyncGenerator<StreamEvent> {
  const projection = projectToolUpdates(options, config.toolUpdate)
  const reply = config.script ? scriptedReply(config.script, call)
    : isCompactionRequest(projection.messages) ? compactionReply(projection.messages)
    : echoReply(projection.messages)
  // Definitions are the frozen objects from the log, so the estimate measures each of them only once.
  const { tools, deferred } = declared(projection.declarations, options.tools)
  const request: ScriptedRequest = { tools, system: options.system, deferred, messages: projection.messages }
  yield* play(reply, call, (output) => cache.usage(request, output), options)
}

interface Declared {
  tools: readonly ToolSchema[]
  deferred: readonly string[]
  /** The request's tool list this was read against. */
  against: readonly ToolSchema[]
}

const declaredOf = new WeakMap<readonly ToolDeclaration[], Declared>()

/**
 * The declared definitions and deferred names of a projection. Unprojected, the tools are the request's
 * own frozen list, which the estimate then measures once; a frozen declaration list (the same one step
 * after step while the header holds) is read once.
 */
function declared(declarations: readonly ToolDeclaration[], tools: readonly ToolSchema[]): Declared {
  const known = declaredOf.get(declarations)
  if (known?.against === tools) return known
  const value: Declared = {
    against: tools,
    tools: declarations.length === tools.length && declarations.every((d, i) => d.definition === tools[i])
      ? tools
      : Object.freeze(declarations.map((declaration) => declaration.definition)),
    deferred: Object.freeze(declarations.filter((declaration) => declaration.deferred).map((declaration) => declaration.definition.name)),
  }
  if (Object.isFrozen(declarations)) declaredOf.set(declarations, value)
  return value
}

function scriptedReply(script: Script, call: number): Reply {
  const reply = script.responses[call - 1]
  if (reply) return reply
  throw new LlmScriptedError('SCRIPT_EXHAUSTED', `script ${script.path} has ${script.responses.length} response(s); model call ${call} has none left`)
}

async function* play(reply: Reply, call: number, usageOf: (output: string) => Usage, options: GenerateOptions): AsyncGenerator<StreamEvent> {
  const { signal } = options
  const stop = () => new LlmScriptedError('CANCELLED', `scripted call ${call} to "${options.model}" was cancelled`)
  if (signal?.aborted) throw stop()
  if (reply.delayMs) await sleep(reply.delayMs, signal, stop)
  if (reply.error) throw new LlmScriptedError('SCRIPTED_FAILURE', reply.error)

  const toolCalls: ToolCall[] = reply.toolCalls.map((item, index) => ({ ...item, id: item.id ?? `call_${call}_${index + 1}` }))
  for (const delta of chunks(reply.text)) {
    if (signal?.aborted) throw stop()
    yield { type: 'text', delta }
  }
  for (const toolCall of toolCalls) {
    if (signal?.aborted) throw stop()
    yield { type: 'tool-call', call: toolCall }
  }
  const output = reply.text + (toolCalls.length ? JSON.stringify(toolCalls) : '')
  // every request passes through the emulated cache; a script's own figures replace its counts (a replay's
  // recorded ones among them), and are marked emulated only when the script says so
  const counted = usageOf(output)
  const usage = reply.usage ? { inputTokens: counted.inputTokens, outputTokens: counted.outputTokens, ...reply.usage } : counted
  yield { type: 'usage', usage: normalizeUsage(usage) }
  yield { type: 'done', stopReason: reply.stopReason ?? (toolCalls.length ? 'tool_use' : 'end_turn') }
}

/** Splits text into up to three deltas on code-point boundaries. */
function chunks(text: string): string[] {
  const points = Array.from(text)
  const size = Math.max(1, Math.ceil(points.length / DELTAS_PER_TEXT))
  const result: string[] = []
  for (let start = 0; start < points.length; start += size) result.push(points.slice(start, start + size).join(''))
  return result
}

function sleep(ms: number, signal: AbortSignal | undefined, stop: () => Error): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer)
      reject(stop())
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}
