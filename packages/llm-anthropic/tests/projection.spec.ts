import type { GenerateOptions } from 'dsh-llm'
import { drainStream, toolChanges } from 'dsh-llm-testing'
import { describe, expect, it } from 'vitest'
import { DEFAULT_TOOL_UPDATE_BETA } from 'dsh-llm/http'
import { reply, sendEvents } from './wire-frames.ts'
import { setup } from './setup.ts'

const { read, write, grep, user1, assistant1, user2, beforeAddition, afterAddition, beforeRemoval, afterRemoval } = toolChanges
const MODELS = [
  { id: 'm-add', toolUpdate: 'addition-only' as const },
  { id: 'm-hist', toolUpdate: 'in-history' as const },
  { id: 'm-none', toolUpdate: 'none' as const },
  'm-default',
]

/** The raw body up to and including its last message (everything before `],"stream":true}`). */
function throughMessages(raw: string) {
  const end = raw.lastIndexOf('],"stream":true}')
  expect(end).toBeGreaterThan(0)
  return raw.slice(0, end)
}

async function run(...requests: GenerateOptions[]) {
  const h = await setup((_, res) => sendEvents(res, reply({ text: 'ok' })), { provider: 'deepseek', models: MODELS })
  for (const options of requests) await drainStream(h.ctx, options)
  await h.teardown()
  return h.server.requests.map((recorded) => ({ raw: recorded.body, body: JSON.parse(recorded.body), beta: recorded.headers['anthropic-beta'] }))
}

const names = (tools: { name: string }[] | undefined) => (tools ?? []).map((entry) => entry.name)
const systemMessages = (body: { messages: { role: string }[] }) => body.messages.filter((message) => message.role === 'system')

describe('addition-only', () => {
  it('declares the added tool deferred, announces it in a tool_addition block and keeps the previous bytes', async () => {
    const [first, second] = await run(beforeAddition('m-add'), afterAddition('m-add'))
    expect(first.beta).toBeUndefined()
    expect(systemMessages(first.body)).toEqual([])

    expect(second.body.tools).toEqual([
      { name: 'read', description: read.description, input_schema: read.parameters },
      { name: 'write', description: write.description, input_schema: write.parameters },
      { name: 'grep', description: grep.description, input_schema: grep.parameters, defer_loading: true },
    ])
    expect(second.body.messages.at(-1)).toEqual({
      role: 'system',
      content: [{ type: 'tool_addition', tool: { name: 'grep', description: grep.description, input_schema: grep.parameters } }],
    })
    expect(second.beta).toBe(DEFAULT_TOOL_UPDATE_BETA)

    // The deferred declaration is the only new byte before the history; without it, the second body
    // repeats the first one byte for byte up to the end of the first request's messages.
    const deferred = `,${JSON.stringify(second.body.tools[2])}`
    expect(second.raw.split(deferred)).toHaveLength(2)
    const withoutDeferred = second.raw.replace(deferred, '')
    expect(withoutDeferred.startsWith(throughMessages(first.raw))).toBe(true)
    expect(withoutDeferred[throughMessages(first.raw).length]).toBe(',')
  })

  it('keeps the whole previous request as a byte prefix once the addition is in history', async () => {
    const call = { id: 'toolu_1', name: 'grep', arguments: { pattern: 'TODO' } }
    const [, second, third] = await run(
      beforeAddition('m-add'),
      afterAddition('m-add'),
      afterAddition('m-add', [
        { role: 'assistant', text: '', toolCalls: [call] },
        { role: 'tool', id: 'toolu_1', name: 'grep', output: 'a.txt:3: TODO', isError: false },
      ]),
    )
    expect(third.raw.startsWith(throughMessages(second.raw))).toBe(true)
    expect(third.body.tools).toEqual(second.body.tools)
    expect(systemMessages(third.body)).toHaveLength(1)
    expect(third.beta).toBe(DEFAULT_TOOL_UPDATE_BETA)
  })

  it('drops a removed tool and sends no block for the removal', async () => {
    const [, second] = await run(beforeRemoval('m-add'), afterRemoval('m-add'))
    expect(names(second.body.tools)).toEqual(['read', 'write'])
    expect(systemMessages(second.body)).toEqual([])
    expect(second.beta).toBeUndefined()
  })

  it('is the default mode of a model given as a plain id', async () => {
    const [, second] = await run(beforeAddition('m-default'), afterAddition('m-default'))
    expect(second.body.tools[2]).toMatchObject({ name: 'grep', defer_loading: true })
    expect(second.beta).toBe(DEFAULT_TOOL_UPDATE_BETA)
  })

  it('falls back to the effective tools without blocks when the history misses a recorded update', async () => {
    const options = afterAddition('m-add')
    const [only] = await run({ ...options, messages: [user1, assistant1, user2] })
    expect(only.body.tools).toEqual([read, write, grep].map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters })))
    expect(systemMessages(only.body)).toEqual([])
    expect(only.beta).toBeUndefined()
  })

  it('falls back to the effective tools without blocks when there is no tool history', async () => {
    const [only] = await run({ ...afterAddition('m-add'), toolHistory: undefined })
    expect(names(only.body.tools)).toEqual(['read', 'write', 'grep'])
    expect(JSON.stringify(only.body.tools)).not.toContain('defer_loading')
    expect(systemMessages(only.body)).toEqual([])
    expect(only.beta).toBeUndefined()
  })

  it('declares explicitly deferred tools with defer_loading, without the beta header when no block is sent', async () => {
    const [only] = await run({ ...beforeAddition('m-add'), deferredTools: ['write'] })
    expect(only.body.tools[1]).toEqual({ name: 'write', description: write.description, input_schema: write.parameters, defer_loading: true })
    expect(only.body.tools[0]).not.toHaveProperty('defer_loading')
    expect(only.beta).toBeUndefined()
  })
})

describe('in-history', () => {
  it('keeps a removed tool declared, adds a tool_removal block and keeps the previous bytes', async () => {
    const [first, second] = await run(beforeRemoval('m-hist'), afterRemoval('m-hist'))
    expect(first.beta).toBeUndefined()
    expect(second.body.tools).toEqual(first.body.tools)
    expect(second.body.messages.at(-1)).toEqual({ role: 'system', content: [{ type: 'tool_removal', name: 'grep' }] })
    expect(second.beta).toBe(DEFAULT_TOOL_UPDATE_BETA)
    expect(second.raw.startsWith(throughMessages(first.raw))).toBe(true)
  })

  it('announces additions like addition-only', async () => {
    const [, second] = await run(beforeAddition('m-hist'), afterAddition('m-hist'))
    expect(second.body.tools[2]).toMatchObject({ name: 'grep', defer_loading: true })
    expect(systemMessages(second.body)).toHaveLength(1)
  })
})

describe('none', () => {
  it('sends the effective tools, no update blocks and no beta header', async () => {
    const [, second] = await run(beforeAddition('m-none'), afterAddition('m-none'))
    expect(names(second.body.tools)).toEqual(['read', 'write', 'grep'])
    expect(JSON.stringify(second.body)).not.toMatch(/defer_loading|tool_addition/)
    expect(second.body.messages.map((message: { role: string }) => message.role)).toEqual(['user', 'assistant', 'user'])
    expect(second.beta).toBeUndefined()
  })
})

describe('beta header', () => {
  it('uses the configured toolUpdateBeta value, and none at all when it is empty', async () => {
    for (const [toolUpdateBeta, expected] of [['tool-changes-test-1', 'tool-changes-test-1'], ['', undefined]] as const) {
      const h = await setup((_, res) => sendEvents(res, reply({ text: 'ok' })), { provider: 'deepseek', models: MODELS, toolUpdateBeta })
      await drainStream(h.ctx, afterAddition('m-add'))
      await h.teardown()
      expect(h.server.requests[0].headers['anthropic-beta']).toBe(expected)
      expect(systemMessages(h.server.bodies()[0])).toHaveLength(1)
    }
  })
})
