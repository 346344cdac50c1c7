import { Context } from 'cordis'
import type { ChatMessage, ToolSchema } from 'dsh-core'
import fc from 'fast-check'
import LlmRuntime, { type GenerateOptions } from 'dsh-llm'
import { createAnthropicAdapter, messagesWireBody, type AnthropicConfig } from 'dsh-llm-anthropic'
import { chatWireBody, createOpenAIAdapter, type OpenAIConfig } from 'dsh-llm-openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import PromptCache from '../src/index.ts'
import { layoutOf } from '../src/layout.ts'

/** One route: which wire, and the adapter config serving its one model. */
interface Route {
  wire: 'messages' | 'chat'
  config: Partial<AnthropicConfig> & Partial<OpenAIConfig>
}

const anthropic = (id: string, entry: object): Route => ({ wire: 'messages', config: { baseURL: 'https://api.anthropic.com', provider: 'anthropic', apiKeyEnv: 'DSH_UNUSED_KEY', models: [{ id, ...entry }] as never } })
const chat = (id: string, provider: string, entry: object): Route => ({ wire: 'chat', config: { baseURL: 'https://example.test/v1', provider: provider as never, apiKeyEnv: 'DSH_UNUSED_KEY', models: [{ id, ...entry }] as never } })

/** Every way a request gets (or does not get) cache markers: profiles, tool-update modes, TTLs, breakpoint models. */
const ROUTES: Record<string, Route> = {
  'a-none': anthropic('a-none', { toolUpdate: 'none' }),
  'a-append': anthropic('a-append', { toolUpdate: 'append', cacheTtl: '1h' }),
  'a-addition-only': anthropic('a-addition-only', { toolUpdate: 'addition-only', toolChanges: true }),
  'a-in-history': anthropic('a-in-history', { toolUpdate: 'in-history', toolChanges: true, cacheTtl: '5m' }),
  'a-deepseek': { wire: 'messages', config: { baseURL: 'https://api.deepseek.com/anthropic', apiKeyEnv: 'DSH_UNUSED_KEY', models: [{ id: 'a-deepseek', toolUpdate: 'in-history' }] as never } },
  'o-breakpoints': chat('o-breakpoints', 'openai', { cacheBreakpoints: true }),
  'o-automatic': chat('o-automatic', 'openai', { cacheBreakpoints: false }),
  'o-dashscope': chat('o-dashscope', 'dashscope', { toolUpdate: 'append' }),
  'o-deepseek': chat('o-deepseek', 'deepseek', { toolUpdate: 'in-history' }),
}

const POOL: ToolSchema[] = ['read', 'write', 'grep', 'list', 'fetch'].map((name) => ({
  name, description: `Does ${name}.`, parameters: { type: 'object', properties: { [name]: { type: 'string' } } },
}))
const byName = new Map(POOL.map((tool) => [tool.name, tool]))

/** A step of a conversation: a user turn answered (text and tool calls, each with its result), or a tool change. */
type Step = { turn: { text: boolean; calls: number } } | { change: string }

const arbitraryRequest = fc.record({
  model: fc.constantFrom(...Object.keys(ROUTES)),
  system: fc.constantFrom('', 'You are terse.'),
  start: fc.shuffledSubarray(POOL.map((tool) => tool.name)),
  steps: fc.array(fc.oneof(
    { weight: 4, arbitrary: fc.record({ turn: fc.record({ text: fc.boolean(), calls: fc.nat({ max: 2 }) }) }) },
    { weight: 1, arbitrary: fc.record({ change: fc.constantFrom(...POOL.map((tool) => tool.name)) }) },
  ), { maxLength: 24 }),
  last: fc.constantFrom('user', 'answer', 'change'),
  history: fc.boolean(),
  deferred: fc.subarray(POOL.map((tool) => tool.name)),
}).map(build)

/**
 * A request of one tool sequence: every text and call id unique, each change adding a tool that is not
 * present or removing one that is, logged as a developer message and in the snapshot when `history`.
 */
function build({ model, system, start, steps, last, history, deferred }: {
  model: string; system: string; start: string[]; steps: Step[]; last: string; history: boolean; deferred: string[]
}): GenerateOptions {
  const messages: ChatMessage[] = []
  const present = [...start]
  const updates: { seq: number; added: string[]; removed: string[]; headerSeq: number }[] = []
  const headers: Record<number, ToolSchema[]> = { 1: start.map((name) => byName.get(name)!) }
  let n = 0
  const change = (name: string) => {
    const removing = present.includes(name)
    if (removing) present.splice(present.indexOf(name), 1)
    else present.push(name)
    const headerSeq = 2 + updates.length
    headers[headerSeq] = present.map((entry) => byName.get(entry)!)
    const update = { added: removing ? [] : [name], removed: removing ? [name] : [], headerSeq }
    updates.push({ seq: 100 + updates.length, ...update })
    messages.push({ role: 'developer', source: 'tool-registry', ...update })
  }
  for (const step of steps) {
    if ('change' in step) { change(step.change); continue }
    messages.push({ role: 'user', text: `u${n++}` })
    const calls = Array.from({ length: step.turn.calls }, () => ({ id: `c${n++}`, name: 'read', arguments: { n } }))
    messages.push({ role: 'assistant', text: step.turn.text ? `a${n++}` : '', toolCalls: calls })
    for (const call of calls) messages.push({ role: 'tool', id: call.id, name: call.name, output: `r${n++}`, isError: false })
  }
  if (last === 'user') messages.push({ role: 'user', text: `u${n++}` })
  if (last === 'change') change(POOL[n % POOL.length]!.name)
  return {
    model, system, messages,
    tools: present.map((name) => byName.get(name)!),
    deferredTools: deferred,
    ...history && {
      toolHistory: { sequenceStartSeq: 1, declarations: headers[1]!, updates, resolve: (name: string, seq: number) => headers[seq]?.find((tool) => tool.name === name) },
    },
  }
}

/** A marked block named by what it holds: `tool:<name>`, `system`, `text:<text>`, `call:<id>`, `result:<id>`, `notice`. */
type Key = string

/** What a tool marker on the wire is, seen by the detector: a tool its layout does not list counts as the end of its tools. */
function toolKey(name: string, options: GenerateOptions): Key[] {
  if (options.tools.some((tool) => tool.name === name)) return [`tool:${name}`]
  return options.tools.length ? [`tool:${options.tools.at(-1)!.name}`] : []
}

const textKey = (text: string): Key => (text.startsWith('[tool registry]') ? 'notice' : `text:${text}`)

/** The markers the wire body of `options` carries, in prefix order. */
function wireKeys(options: GenerateOptions): Key[] {
  const route = ROUTES[options.model]!
  const keys: Key[] = []
  if (route.wire === 'messages') {
    const body = messagesWireBody(route.config, options).body as any
    for (const tool of body.tools ?? []) if (tool.cache_control) keys.push(...toolKey(tool.name, options))
    if (Array.isArray(body.system) && body.system.some((block: any) => block.cache_control)) keys.push('system')
    for (const message of body.messages) {
      if (!Array.isArray(message.content)) continue
      for (const block of message.content) {
        if (!block.cache_control) continue
        keys.push(block.type === 'text' ? textKey(block.text) : block.type === 'tool_use' ? `call:${block.id}` : block.type === 'tool_result' ? `result:${block.tool_use_id}` : `other:${block.type}`)
      }
    }
    return keys
  }
  const body = chatWireBody(route.config, options).body as any
  body.messages.forEach((message: any, index: number) => {
    const part = Array.isArray(message.content) ? message.content[0] : undefined
    if (!part || !(part.prompt_cache_breakpoint || part.cache_control)) return
    if (index === 0 && message.role === 'system') keys.push('system')
    else if (message.role === 'tool') keys.push(`result:${message.tool_call_id}`)
    else keys.push(textKey(part.text))
  })
  return keys
}

/** The markers the detector predicts for `options` (its route's `marks`, laid out), in prefix order. */
function detectorKeys(ctx: Context, options: GenerateOptions): Key[] {
  const marks = ctx.promptCache.caching(options.model).marks?.(options) ?? []
  const layout = layoutOf(options, options.tools.map((tool) => tool.name), '', marks)
  return layout.marks.map((count) => {
    if (count <= options.tools.length) return `tool:${options.tools[count - 1]!.name}`
    if (count <= layout.systemBlocks) return 'system'
    const index = layout.blockEnds.findIndex((end) => end >= count)
    const block = count - (index ? layout.blockEnds[index - 1]! : layout.systemBlocks) - 1
    const message = options.messages.at(index)!
    if (message.role === 'user') return `text:${message.text}`
    if (message.role === 'tool') return `result:${message.id}`
    if (message.role === 'developer') return 'notice'
    const texts = message.text ? 1 : 0
    return block < texts ? `text:${message.text}` : message.toolCalls[block - texts] ? `call:${message.toolCalls[block - texts]!.id}` : `text:${message.text}`
  })
}

describe('cache markers: the adapters and the detector', () => {
  const ctx = new Context()
  beforeAll(async () => {
    await ctx.plugin(LlmRuntime)
    await ctx.plugin({
      name: 'marks-agreement-adapters',
      inject: ['llm'],
      apply: (ctx: Context) => {
        for (const route of Object.values(ROUTES)) ctx.llm.register(route.wire === 'messages' ? createAnthropicAdapter(route.config) : createOpenAIAdapter(route.config))
      },
    })
    await ctx.plugin(PromptCache, {})
  })
  afterAll(() => ctx.registry.delete(PromptCache))

  it('agree, for any request on any route, on every marker: tool, system prompt and history blocks', () => {
    let marked = 0
    fc.assert(fc.property(arbitraryRequest, (options) => {
      const wire = wireKeys(options)
      expect(detectorKeys(ctx, options)).toEqual(wire)
      if (wire.some((key) => key !== 'system' && !key.startsWith('tool:'))) marked++
    }), { numRuns: 400 })
    // the property looked at marked histories, not only at unmarked ones
    expect(marked).toBeGreaterThan(100)
  })
})
