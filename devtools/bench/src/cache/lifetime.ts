import { Context, type Plugin } from 'cordis'
import type { Agent } from 'dsh-agent-loop'
import AgentSpine from 'dsh-harness'
import AnthropicProvider, { messagesWireBody } from 'dsh-llm-anthropic'
import { DEFAULT_TOOL_UPDATE_BETA, requestBeta } from 'dsh-llm/http'
import OpenAIProvider, { chatWireBody } from 'dsh-llm-openai'
import PromptCache from 'dsh-cache-break-detector'
import type {} from 'dsh-tools'
import ToolsStatic from 'dsh-tools-static'
import { COMPACT_AT, type Configuration } from './configurations.ts'
import { watchReconstruction } from './reconstruction.ts'
import { watchBreaks } from './breaks.ts'
import type { BenchTool, ToolGroup } from './tools.ts'
import { VIRTUAL_EPOCH_MS, VirtualClock } from './virtual-clock.ts'

export const MODEL = 'emulated-coder'
export const SESSION = 'bench-cache-session'
export const KEY_ENV = 'DSH_BENCH_CACHE_API_KEY'
const PERSONA = 'You are a careful senior engineer working in {{cwd}} on the shop-api service. '
  + 'Prefer small, tested changes, and say what you changed and why.'
const CWD = '/workspace/shop-api'
/** Virtual milliseconds between two registrations of a boot. */
const DELAY_STEP_MS = 3

/** One simulated process, booted and holding the resumed session's agent. */
export interface Lifetime {
  /** The process's root context (its services: `agentLoop`, `harness`, …). */
  ctx: Context
  agent: Agent
  /** Tool names in the order they registered during the boot. */
  registered: string[]
  /** Loads one more plugin into the running process. */
  load(plugin: Plugin, config?: unknown): Promise<void>
  /** Lets a tool given to `boot()` as `later` arrive now: its `afterReadyMs` timer fires (a mid-session addition). */
  arrive(name: string): Promise<void>
  /** Ends the process: forgets the agent (its session is flushed to disk) and disposes every plugin. */
  stop(): Promise<void>
}

/**
 * Boots one process: the real spine (persisting to `root`), the configuration's adapter pointed at the
 * emulator, and one `dsh-tools-static` plugin per group whose tools register one by one in `order` —
 * each tool's `delayMs` is its place in the shuffled order. The delays run on a virtual clock, so the
 * race comes out as planned however busy the machine is. Each `later` tool is loaded too, with an
 * `afterReadyMs` on a clock of its own that `arrive()` runs. Then the session is resumed from disk.
 */
export async function boot(
  configuration: Configuration, origin: string, root: string, groups: ToolGroup[], order: string[], later: BenchTool[] = [],
): Promise<Lifetime> {
  const { ctx, load, fibers } = await startProcess(configuration, origin, root)
  const rank = new Map(order.map((name, index) => [name, index]))
  const registered: string[] = []
  const stopRecording = ctx.on('tools/change', ({ action, name }) => { if (action === 'register') registered.push(name) })
  // the delays are part of each plugin's start: start them all, let every apply set its timers, then
  // run the clock, and only then wait for the starts to finish
  const clock = new VirtualClock()
  clock.install()
  let starting: Promise<void>[]
  try {
    starting = groups.map((group) => load(ToolsStatic, {
      tools: group.tools.map((tool) => ({ ...tool, delayMs: VIRTUAL_EPOCH_MS + DELAY_STEP_MS * rank.get(tool.name)! })),
    }))
    await new Promise<void>((resolve) => setImmediate(resolve))
  } finally {
    clock.uninstall()
  }
  await clock.run()
  await Promise.all(starting)
  stopRecording()

  // a bare Context has no startup barrier, so each after-ready timer starts with its plugin, here on its own clock
  const arrivals = new Map<string, VirtualClock>()
  for (const tool of later) {
    const arrival = new VirtualClock()
    arrival.install()
    try {
      await load(ToolsStatic, { tools: [{ ...tool, afterReadyMs: VIRTUAL_EPOCH_MS }] })
    } finally {
      arrival.uninstall()
    }
    arrivals.set(tool.name, arrival)
  }

  return finish(ctx, fibers, registered, load, async (name) => {
    const arrival = arrivals.get(name)
    if (!arrival) throw new Error(`no later tool "${name}" in this lifetime`)
    await arrival.run()
  })
}

/** A process in which every plugin but the tool sources is up: the spine, the baseline listener, the adapter. */
export async function startProcess(configuration: Configuration, origin: string, root: string) {
  const ctx = new Context()
  const fibers: { dispose(): Promise<void> }[] = []
  const load = async (plugin: Plugin, config?: unknown) => {
    fibers.push(await ctx.plugin(plugin, config))
  }
  await load(AgentSpine, {
    persist: true, persistenceRoot: root, scripted: false, model: MODEL, persona: PERSONA, cwd: CWD,
    ...configuration.toolOrder && { toolOrder: configuration.toolOrder },
    ...configuration.schemaKeyOrder && { schemaKeyOrder: configuration.schemaKeyOrder },
    ...configuration.contextWindow && { compactAt: COMPACT_AT },
  })
  if (configuration.registrationOrder) await load(RegistrationOrder)
  const { route = '', toolUpdate, contextWindow, entry, adapter } = configuration
  const model = { id: MODEL, ...toolUpdate && { toolUpdate }, ...contextWindow && { contextWindow }, ...entry }
  const messages = { baseURL: `${origin}${route}`, apiKeyEnv: KEY_ENV, models: [model], ...adapter }
  const chat = { baseURL: `${origin}${route}/v1`, apiKeyEnv: KEY_ENV, models: [model], ...adapter }
  // on both wires the rebuilt request's bytes and its tool-update beta header are compared with what the provider got
  watchReconstruction(ctx, SESSION, configuration.wire === 'messages' ? (request) => {
    const wire = messagesWireBody(messages as never, request)
    const beta = requestBeta(wire, (adapter?.toolUpdateBeta as string | undefined) ?? DEFAULT_TOOL_UPDATE_BETA)
    return { body: JSON.stringify(wire.body), ...beta && { beta } }
  } : (request) => {
    const wire = chatWireBody(chat as never, request)
    const beta = requestBeta(wire, (adapter?.toolUpdateBeta as string | undefined) ?? DEFAULT_TOOL_UPDATE_BETA)
    return { body: JSON.stringify(wire.body), ...beta && { beta } }
  })
  await load(PromptCache)
  watchBreaks(ctx, configuration.key)
  if (configuration.wire === 'messages') await load(AnthropicProvider, messages)
  else await load(OpenAIProvider, chat)
  return { ctx, load, fibers }
}

/** Resumes the session in a booted process and wraps it as a `Lifetime`. */
export async function finish(
  ctx: Context,
  fibers: { dispose(): Promise<void> }[],
  registered: string[],
  load: Lifetime['load'],
  arrive: Lifetime['arrive'],
): Promise<Lifetime> {
  const agent = await ctx.agentLoop.createAgent({ id: SESSION })
  return {
    ctx,
    agent,
    registered,
    load,
    arrive,
    async stop() {
      await ctx.agentLoop.removeAgent(SESSION)
      for (const fiber of fibers.reverse()) await fiber.dispose()
    },
  }
}

/**
 * The baseline harness: the tool list in the order the tools registered in this process, as harnesses
 * without a canonical order send it. A benchmark-only `system-prompt/assemble` listener.
 */
const RegistrationOrder = {
  name: 'bench-registration-order',
  inject: ['systemPrompt', 'tools'],
  apply(ctx: Context) {
    const rank = new Map<string, number>()
    let next = 0
    ctx.on('tools/change', ({ action, name }) => {
      if (action === 'register') rank.set(name, next++)
      else if (action === 'unregister') rank.delete(name)
    })
    ctx.on('system-prompt/assemble', async (assembly, _context, proceed) => {
      assembly.tools.sort((a, b) => (rank.get(a.name) ?? next) - (rank.get(b.name) ?? next))
      return proceed()
    })
  },
}
