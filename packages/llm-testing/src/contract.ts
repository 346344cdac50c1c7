import { deepFreeze, type ChatMessage, type ToolSchema, type Usage } from 'dsh-core'
import type { Context } from 'cordis'
import { describe, expect, it } from 'vitest'
import { LlmError } from 'dsh-llm'
import type { GenerateOptions, StreamEvent } from 'dsh-llm'
import 'dsh-llm'
import { joinText } from './streams.ts'

/** One response the harness asks the model under test to give next. */
export interface ContractResponse {
  text?: string
  toolCalls?: { name: string; arguments: Record<string, unknown> }[]
  usage?: Usage
  /** The provider fails this call with this message (an HTTP error, a scripted error). */
  error?: string
  /** Wait this long before the first byte, so the harness can abort mid-call. */
  delayMs?: number
}

/** What an adapter's test file hands the contract for each check. */
export interface ContractHarness {
  /** A context with the `llm` service and the adapter under test registered. */
  ctx: Context
  /** The model id to request. */
  model: string
  /**
   * Queues the responses of the next model calls, in order (write a script file, program a loopback
   * server). Omit it for models that follow the scripted-echo conventions (`echo: <text>`, `/call`).
   */
  script?(responses: ContractResponse[]): void | Promise<void>
  /** Releases what setup created (servers, temp dirs, the context). */
  teardown?(): void | Promise<void>
}

const PROMPT = 'contract ping'
const LOOKUP: ToolSchema = {
  name: 'contract_lookup',
  description: 'Looks a word up.',
  parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
}
const LOOKUP_ARGS = { query: 'cordis' }
const PROMPTLY_MS = 2000

/**
 * The checks every `LlmAdapter` must pass, as a vitest `describe` block. `setup` runs once per check.
 * Texts are chosen so a scripted harness and the scripted-echo model expect the same bytes.
 */
export function adapterContract(name: string, setup: () => ContractHarness | Promise<ContractHarness>): void {
  const check = (title: string, body: (harness: ContractHarness, skip: (note: string) => void) => Promise<void>) => {
    it(title, async (test) => {
      const harness = await setup()
      try {
        await body(harness, (note) => test.skip(note))
      } finally {
        await harness.teardown?.()
      }
    })
  }

  describe(`adapter contract: ${name}`, () => {
    check('streams a text turn that ends with exactly one done', async (h) => {
      await h.script?.([{ text: `echo: ${PROMPT}` }])
      const events = await rawEvents(h, request(h, [{ role: 'user', text: PROMPT }]))
      expectWellFormed(events)
      expect(joinText(events)).toBe(`echo: ${PROMPT}`)
      expect(events.filter((event) => event.type === 'tool-call')).toEqual([])
      expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' })
    })

    check('round-trips a tool call', async (h) => {
      await h.script?.([
        { toolCalls: [{ name: LOOKUP.name, arguments: LOOKUP_ARGS }] },
        { text: `tool ${LOOKUP.name} returned: found` },
      ])
      const user: ChatMessage = { role: 'user', text: `/call ${LOOKUP.name} ${JSON.stringify(LOOKUP_ARGS)}` }
      const first = await rawEvents(h, request(h, [user]))
      expectWellFormed(first)
      const calls = first.flatMap((event) => event.type === 'tool-call' ? [event.call] : [])
      expect(calls).toHaveLength(1)
      expect(calls[0].name).toBe(LOOKUP.name)
      expect(calls[0].arguments).toEqual(LOOKUP_ARGS)
      expect(typeof calls[0].id === 'string' && calls[0].id.length > 0).toBe(true)
      expect(first.at(-1)).toEqual({ type: 'done', stopReason: 'tool_use' })

      const second = await rawEvents(h, request(h, [
        user,
        { role: 'assistant', text: joinText(first), toolCalls: calls },
        { role: 'tool', id: calls[0].id, name: LOOKUP.name, output: 'found', isError: false },
      ]))
      expectWellFormed(second)
      expect(joinText(second)).toBe(`tool ${LOOKUP.name} returned: found`)
      expect(second.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' })
    })

    check('reports usage once, as non-negative integers', async (h) => {
      const scripted: Usage = { inputTokens: 120, outputTokens: 7, cacheReadTokens: 100, cacheWriteTokens: 0 }
      await h.script?.([{ text: `echo: ${PROMPT}`, usage: scripted }])
      const events = await rawEvents(h, request(h, [{ role: 'user', text: PROMPT }]))
      const usages = events.flatMap((event) => event.type === 'usage' ? [event.usage] : [])
      expect(usages).toHaveLength(1)
      for (const key of ['inputTokens', 'outputTokens', 'cacheReadTokens', 'cacheWriteTokens'] as const) {
        expect(Number.isInteger(usages[0][key]) && usages[0][key] >= 0, `${key} = ${usages[0][key]}`).toBe(true)
      }
      expect(usages[0].inputTokens).toBeGreaterThan(0)
      if (h.script) expect(usages[0]).toEqual(scripted)
    })

    check('gets deep-frozen options and leaves them usable', async (h) => {
      await h.script?.([{ text: 'echo: contract frozen' }])
      const controller = new AbortController()
      const options = request(h, [
        { role: 'user', text: PROMPT },
        { role: 'assistant', text: '', toolCalls: [{ id: 'call_0', name: LOOKUP.name, arguments: LOOKUP_ARGS }] },
        { role: 'tool', id: 'call_0', name: LOOKUP.name, output: 'found', isError: false },
        { role: 'assistant', text: 'done', toolCalls: [] },
        { role: 'user', text: 'contract frozen' },
      ], controller.signal)
      let seen: GenerateOptions | undefined
      const stop = h.ctx.on('llm/request', (dispatched) => { seen = dispatched })
      try {
        const events: StreamEvent[] = []
        for await (const event of h.ctx.llm.stream(options)) events.push(event)
        expect(joinText(events)).toBe('echo: contract frozen')
      } finally {
        stop()
      }
      expect(seen).toBe(options)
      for (const node of [options, options.tools, options.tools[0], options.tools[0].parameters, options.messages, options.messages.at(1)]) {
        expect(Object.isFrozen(node)).toBe(true)
      }
      expect(Object.isFrozen(options.signal)).toBe(false)
      controller.abort()
      expect(options.signal?.aborted).toBe(true)
    })

    check('ends promptly with CANCELLED when the signal aborts', async (h) => {
      await h.script?.([{ text: 'echo: contract slow', delayMs: 10_000 }])
      const controller = new AbortController()
      const timer = setTimeout(() => controller.abort(), 50)
      const started = Date.now()
      const events: StreamEvent[] = []
      try {
        const error = await (async () => {
          for await (const event of h.ctx.llm.stream(request(h, [{ role: 'user', text: 'contract slow' }], controller.signal))) {
            events.push(event)
            controller.abort()
          }
        })().then(() => undefined, (error: unknown) => error)
        expect(error).toBeInstanceOf(LlmError)
        expect((error as LlmError).code).toBe('CANCELLED')
      } finally {
        clearTimeout(timer)
      }
      expect(Date.now() - started).toBeLessThan(PROMPTLY_MS)
      expect(events.filter((event) => event.type === 'done')).toEqual([])
    })

    check('stops by itself when the signal is already aborted', async (h) => {
      await h.script?.([{ text: 'echo: contract early' }])
      const controller = new AbortController()
      controller.abort()
      const started = Date.now()
      const events: StreamEvent[] = []
      await (async () => {
        for await (const event of adapterStream(h, request(h, [{ role: 'user', text: 'contract early' }], controller.signal))) {
          events.push(event)
        }
      })().catch(() => {})
      expect(Date.now() - started).toBeLessThan(PROMPTLY_MS)
      expect(joinText(events)).toBe('')
    })

    check('stops by itself when the signal aborts mid-call', async (h, skip) => {
      if (!h.script) return skip('needs a scripted delay')
      await h.script([{ text: 'echo: contract stuck', delayMs: 10_000 }])
      const controller = new AbortController()
      const timer = setTimeout(() => controller.abort(), 50)
      const started = Date.now()
      try {
        await (async () => {
          for await (const _ of adapterStream(h, request(h, [{ role: 'user', text: 'contract stuck' }], controller.signal))) {
            // draining only: the adapter must end (return or throw) soon after the abort
          }
        })().catch(() => {})
      } finally {
        clearTimeout(timer)
      }
      expect(Date.now() - started).toBeLessThan(PROMPTLY_MS)
    })

    check('surfaces a provider failure as ADAPTER_ERROR naming the provider', async (h, skip) => {
      if (!h.script) return skip('needs a scripted failure')
      await h.script([{ error: 'contract failure 42' }])
      const provider = h.ctx.llm.resolve(h.model).provider
      const error = await h.ctx.llm.generate(request(h, [{ role: 'user', text: PROMPT }])).then(() => undefined, (e: unknown) => e)
      expect(error).toBeInstanceOf(LlmError)
      expect((error as LlmError).code).toBe('ADAPTER_ERROR')
      expect((error as LlmError).message).toContain(`"${provider}"`)
      expect((error as LlmError).message).toContain('contract failure 42')
    })
  })
}

function request(h: ContractHarness, messages: ChatMessage[], signal?: AbortSignal): GenerateOptions {
  return {
    model: h.model,
    system: 'You are the adapter contract.',
    tools: [structuredClone(LOOKUP)],
    messages,
    maxTokens: 256,
    ...signal && { signal },
  }
}

/** The adapter's own events, bypassing the runtime's guard, so the adapter's protocol is what is checked. */
function adapterStream(h: ContractHarness, options: GenerateOptions): AsyncIterable<StreamEvent> {
  return h.ctx.llm.resolve(h.model).stream(deepFreeze(options))
}

async function rawEvents(h: ContractHarness, options: GenerateOptions): Promise<StreamEvent[]> {
  const events: StreamEvent[] = []
  for await (const event of adapterStream(h, options)) events.push(event)
  return events
}

function expectWellFormed(events: StreamEvent[]) {
  const types = events.map((event) => event.type)
  expect(types.every((type) => ['text', 'tool-call', 'usage', 'done'].includes(type)), types.join(',')).toBe(true)
  expect(types.filter((type) => type === 'done'), 'exactly one done').toHaveLength(1)
  expect(types.at(-1), 'done comes last').toBe('done')
  expect(types.filter((type) => type === 'usage').length, 'at most one usage').toBeLessThanOrEqual(1)
}
