import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import LlmRuntime, { type GenerateOptions, type LlmAdapter, type StreamEvent } from 'dsh-llm'
import ScriptedLlm from 'dsh-llm-scripted'
import SessionStore from 'dsh-session'
import SystemPrompt from 'dsh-system-prompt'
import ToolRuntime from 'dsh-tools'
import { afterEach } from 'vitest'
import AgentLoop, { type AgentLoopConfig } from '../src/index.ts'

// Every spine a test sets up is disposed after it, as a process shutdown would: its session logs are
// closed then, not left to the garbage collector ("Closing file descriptor N on garbage collection").
const spines: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const dispose of spines.splice(0).reverse()) await dispose()
})

export interface SetupOptions {
  toolOrder?: string[]
  persona?: string
  loop?: Partial<AgentLoopConfig>
  root?: string
  /** The JSONL store's `durability` (default: its own). */
  durability?: 'turn' | 'event' | 'none'
  /** Extra adapter served beside the scripted model. */
  adapter?: LlmAdapter
  /** Config of the scripted model plugin (default: its own defaults). */
  scripted?: object
}

export const tempRoot = () => mkdtemp(join(tmpdir(), 'dsh-loop-'))

/** A real spine in a real Context: system prompt, tools, sessions on disk, llm with the scripted model, loop. */
export async function setup(options: SetupOptions = {}) {
  const root = options.root ?? await tempRoot()
  const ctx = new Context()
  const fibers = [] as { dispose(): Promise<void> }[]
  const plug = async (plugin: any, config?: any) => { fibers.push(await ctx.plugin(plugin, config)) }
  await plug(SystemPrompt, { persona: options.persona ?? 'You are terse.', ...(options.toolOrder ? { toolOrder: options.toolOrder } : {}) } as any)
  await plug(ToolRuntime, {})
  await plug(SessionStore, { persistenceRoot: root, ...(options.durability ? { durability: options.durability } : {}) })
  await plug(LlmRuntime)
  await plug(ScriptedLlm, options.scripted ?? {})
  if (options.adapter) {
    const adapter = options.adapter
    await plug({ name: 'test-adapter', inject: ['llm'], apply: (ctx: Context) => { ctx.llm.register(adapter) } })
  }
  await plug(AgentLoop, options.loop ?? {})
  /** Disposes the spine in reverse load order, as a process shutdown would; once, whoever calls it first. */
  let disposed: Promise<void> | undefined
  const dispose = () => disposed ??= (async () => { for (const fiber of fibers.reverse()) await fiber.dispose() })()
  spines.push(dispose)
  return { ctx, root, dispose }
}

/** An adapter that counts calls, records what it saw and answers from a list of canned replies. */
export function recordingAdapter(replies: ((options: GenerateOptions) => StreamEvent[] | Promise<StreamEvent[]>)[] = []) {
  const calls: GenerateOptions[] = []
  const adapter: LlmAdapter = {
    provider: 'recording',
    models: ['recording'],
    async* stream(options) {
      calls.push(options)
      const reply = replies[Math.min(calls.length - 1, replies.length - 1)]
      const events = reply ? await reply(options) : [{ type: 'text', delta: 'ok' } as StreamEvent]
      yield* events
    },
  }
  return { adapter, calls }
}

/** Registers a tool plugin whose tools appear after `delayMs`. */
export function toolPlugin(name: string, tools: string[], delayMs = 0) {
  return {
    name,
    inject: ['tools'],
    async apply(ctx: Context) {
      if (delayMs) await new Promise((resolve) => setTimeout(resolve, delayMs))
      for (const tool of tools) {
        ctx.tools.register({
          name: tool,
          description: `The ${tool} tool.`,
          parameters: { type: 'object', properties: { text: { type: 'string' } } },
          execute: (args: { text?: string }) => `${tool}(${args.text ?? ''})`,
        })
      }
    },
  }
}

export const types = (events: readonly { type: string }[]) => events.map((event) => event.type)

/** The dispatched request without its AbortSignal, for byte comparisons. */
export const requestBytes = (request: GenerateOptions | undefined) =>
  JSON.stringify({ model: request?.model, system: request?.system, tools: request?.tools, messages: request?.messages })
