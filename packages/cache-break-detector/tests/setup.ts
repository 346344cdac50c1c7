import { mkdtemp, readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import type { Agent } from 'dsh-agent-loop'
import AgentLoop from 'dsh-agent-loop'
import type { ToolCall } from 'dsh-core'
import LlmRuntime, { planCacheMarks, type GenerateOptions, type LlmAdapter, type StreamEvent } from 'dsh-llm'
import type { RequestMark } from '../src/layout.ts'
import SessionStore, { type SessionEvent } from 'dsh-session'
import SystemPrompt from 'dsh-system-prompt'
// dsh-tools is not a dependency of this package; the loop needs a `tools` service, so tests mount the real one.
import ToolRuntime from 'dsh-tools'
import PromptCache, { type PromptCacheBreak, type PromptCacheConfig } from '../src/index.ts'

export const PERSONA = 'You are terse — très terse.'
export const MODELS = ['cache-a', 'cache-b']

/** One scripted response: the cache figures to report, and tool calls to ask for. */
export interface Reply {
  read: number
  write?: number
  toolCalls?: ToolCall[]
}

/**
 * An adapter serving `cache-a` and `cache-b` that records each request and answers from a queue of
 * replies; each reply's cache figures are the usage it reports. An empty queue answers with no cache reads.
 */
export function cacheAdapter(cachePolicy?: LlmAdapter['cachePolicy'], price?: LlmAdapter['price']) {
  const calls: GenerateOptions[] = []
  const replies: Reply[] = []
  const adapter: LlmAdapter = {
    provider: 'cache-test',
    models: MODELS,
    ...cachePolicy && { cachePolicy, cacheMarks: (options) => plannedMarks(cachePolicy(options.model)!, options) },
    ...price && { price },
    async* stream(options): AsyncGenerator<StreamEvent> {
      calls.push(options)
      const reply = replies.shift() ?? { read: 0 }
      for (const call of reply.toolCalls ?? []) yield { type: 'tool-call', call }
      if (!reply.toolCalls?.length) yield { type: 'text', delta: 'ok' }
      yield { type: 'usage', usage: { inputTokens: 20_000, outputTokens: 3, cacheReadTokens: reply.read, cacheWriteTokens: reply.write ?? 0 } }
    },
  }
  return { adapter, calls, queue: (...next: Reply[]) => { replies.push(...next) } }
}

/**
 * The markers the test adapter's requests carry, as dsh-llm's planner places them on a wire that sends each
 * history message as one block (the test conversations are text only), nothing deferred.
 */
/** A model's cache policy, as `planCacheMarks` takes it. */
type ModelCachePolicy = Parameters<typeof planCacheMarks>[0]

export function plannedMarks(policy: ModelCachePolicy, options: GenerateOptions): RequestMark[] {
  const plan = planCacheMarks(policy, {
    tools: options.tools.map(() => ({ deferred: false })),
    system: Boolean(options.system),
    messages: Array.from({ length: options.messages.length }, () => ({ blocks: 1, markable: true })),
  })
  return [
    ...plan.tool === undefined ? [] : [{ at: 'tool' as const, name: options.tools[plan.tool]!.name }],
    ...plan.system ? [{ at: 'system' as const }] : [],
    ...plan.blocks.map(({ message, block }) => ({ at: 'message' as const, index: message, block })),
  ]
}

export interface SetupOptions {
  /** Detector config; `false` leaves the detector out. */
  detector?: Partial<PromptCacheConfig> | false
  persona?: string
  /** The cache policy the test adapter declares for its models (none: the generic profile). */
  cachePolicy?: LlmAdapter['cachePolicy']
  /** The price the test adapter declares for its models (none: tokens only). */
  price?: LlmAdapter['price']
  /** The system prompt's `schemaKeyOrder` (its default when unset). */
  schemaKeyOrder?: 'canonical' | 'registered'
}

/** A real spine in a real Context (system prompt, tools, sessions in a temp dir, llm, loop), the test adapter and the detector. */
export async function setup(options: SetupOptions = {}) {
  const root = await mkdtemp(join(tmpdir(), 'dsh-cache-break-detector-'))
  const ctx = new Context()
  const fibers: { dispose(): unknown }[] = []
  const plug = async (plugin: any, config?: any) => {
    const fiber = await ctx.plugin(plugin, config)
    fibers.push(fiber)
    return fiber
  }
  const model = cacheAdapter(options.cachePolicy, options.price)
  await plug(SystemPrompt, { persona: options.persona ?? PERSONA, ...options.schemaKeyOrder && { schemaKeyOrder: options.schemaKeyOrder } })
  await plug(ToolRuntime, {})
  await plug(SessionStore, { persistenceRoot: root })
  await plug(LlmRuntime)
  await plug({ name: 'cache-test-adapter', inject: ['llm'], apply: (ctx: Context) => { ctx.llm.register(model.adapter) } })
  await plug(AgentLoop, { model: 'cache-a' })
  if (options.detector !== false) await plug(PromptCache, options.detector ?? {})

  const live: { agent: Agent; info: PromptCacheBreak }[] = []
  ctx.on('prompt-cache/break', (agent, info) => { live.push({ agent, info }) })

  const dispose = async () => { for (const fiber of fibers.reverse()) await fiber.dispose() }
  return { ctx, root, model, live, plug, dispose }
}

/** A plugin that registers one tool with the given parameters. */
export function toolPlugin(name: string, parameters: object = { type: 'object', properties: { text: { type: 'string' } } }) {
  return {
    name: `tool-${name}`,
    inject: ['tools'],
    apply(ctx: Context) {
      ctx.tools.register({ name, description: `The ${name} tool.`, parameters, execute: () => `${name} done` })
    },
  }
}

/** Waits until `ms` have passed, so request gaps are measurable. */
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** The session's persisted JSONL, parsed. */
export async function readLog(root: string, sessionId: string): Promise<SessionEvent[]> {
  const text = await readFile(join(root, `${sessionId}.jsonl`), 'utf8')
  return text.split('\n').filter(Boolean).map((line) => JSON.parse(line))
}

/** The dispatched request without its AbortSignal, for byte comparisons. */
export const requestBytes = (request: GenerateOptions | undefined) => JSON.stringify({
  model: request?.model, system: request?.system, tools: request?.tools, messages: request?.messages, deferredTools: request?.deferredTools,
})
