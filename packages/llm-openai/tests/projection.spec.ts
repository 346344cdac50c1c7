import type { ToolSchema } from 'dsh-core'
import type { GenerateOptions } from 'dsh-llm'
import { drainStream, toolChanges } from 'dsh-llm-testing'
import { describe, expect, it } from 'vitest'
import { type OpenAIConfig } from '../src/index.ts'
import { DEFAULT_TOOL_UPDATE_BETA } from 'dsh-llm/http'
import { sendStream, textReply } from './wire-frames.ts'
import { setup } from './setup.ts'

const { read, write, grep, beforeAddition, afterAddition, afterRemoval } = toolChanges
const MODELS: OpenAIConfig['models'] = ['deepseek-flash', { id: 'm-hist', toolUpdate: 'in-history' }, 'gpt-4o', { id: 'm-none', toolUpdate: 'none' }]

async function run(config: Partial<OpenAIConfig>, ...requests: GenerateOptions[]) {
  const h = await setup((_, res) => sendStream(res, textReply('ok')), { provider: 'deepseek', models: MODELS, ...config })
  for (const options of requests) await drainStream(h.ctx, options)
  await h.teardown()
  return h.server.requests.map((recorded) => ({ raw: recorded.body, body: JSON.parse(recorded.body), headers: recorded.headers }))
}

/** The raw body up to the end of its messages array (everything before `],"tools"`). */
function throughMessages(raw: string) {
  const end = raw.indexOf('],"tools":')
  expect(end).toBeGreaterThan(0)
  return raw.slice(0, end)
}

const wireTool = (tool: ToolSchema) => ({ type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.parameters } })
const blockMessages = (body: { messages: { role: string; content: unknown }[] }) => body.messages.filter((message) => message.role === 'system' && Array.isArray(message.content))

describe('deepseek-flash (addition-only by default)', () => {
  it('announces an addition in a system-role tool_addition block, defers its declaration and keeps the previous bytes', async () => {
    const [first, second] = await run({}, beforeAddition('deepseek-flash'), afterAddition('deepseek-flash'))
    expect(first.headers['anthropic-beta']).toBeUndefined()
    expect(blockMessages(first.body)).toEqual([])

    expect(second.body.tools).toEqual([wireTool(read), wireTool(write), { ...wireTool(grep), defer_loading: true }])
    expect(second.body.messages.at(-1)).toEqual({
      role: 'system',
      content: [{ type: 'tool_addition', tool: { name: 'grep', description: grep.description, parameters: grep.parameters } }],
    })
    expect(second.headers['anthropic-beta']).toBe(DEFAULT_TOOL_UPDATE_BETA)

    // Messages: the first request's are a byte prefix of the second's. Tools: the deferred declaration
    // is the only new byte, appended after the first request's declarations.
    expect(second.raw.startsWith(throughMessages(first.raw))).toBe(true)
    expect(second.raw[throughMessages(first.raw).length]).toBe(',')
    const deferred = `,${JSON.stringify(second.body.tools[2])}`
    expect(second.raw.split(deferred)).toHaveLength(2)
    const tail = (raw: string) => raw.slice(throughMessages(raw).length)
    expect(tail(second.raw.replace(deferred, ''))).toBe(tail(first.raw))
  })

  it('drops a removed tool without a block and without the beta header', async () => {
    const [only] = await run({}, afterRemoval('deepseek-flash'))
    expect(only.body.tools).toEqual([wireTool(read), wireTool(write)])
    expect(blockMessages(only.body)).toEqual([])
    expect(only.headers['anthropic-beta']).toBeUndefined()
  })

  it('sends the configured beta header name and value, and none when the value is empty', async () => {
    const [named] = await run({ toolUpdateBetaHeader: 'x-tool-changes', toolUpdateBeta: 'v2' }, afterAddition('deepseek-flash'))
    expect(named.headers['x-tool-changes']).toBe('v2')
    expect(named.headers['anthropic-beta']).toBeUndefined()
    const [silent] = await run({ toolUpdateBeta: '' }, afterAddition('deepseek-flash'))
    expect(blockMessages(silent.body)).toHaveLength(1)
    expect(silent.headers['anthropic-beta']).toBeUndefined()
  })
})

describe('in-history', () => {
  it('keeps a removed tool declared and announces the removal in a tool_removal block', async () => {
    const [only] = await run({}, afterRemoval('m-hist'))
    expect(only.body.tools.map((tool: { function: { name: string } }) => tool.function.name)).toEqual(['read', 'write', 'grep'])
    expect(only.body.messages.at(-1)).toEqual({ role: 'system', content: [{ type: 'tool_removal', name: 'grep' }] })
    expect(only.headers['anthropic-beta']).toBe(DEFAULT_TOOL_UPDATE_BETA)
  })
})

describe('entries that declare no mode', () => {
  it.each(['gpt-4o', 'm-none'])('%s sends the effective tools, no blocks, no defer_loading and no beta header', async (model) => {
    const [only] = await run({}, { ...afterAddition(model), deferredTools: ['write'] })
    expect(only.body.tools).toEqual([wireTool(read), wireTool(write), wireTool(grep)])
    expect(only.body.messages.map((message: { role: string }) => message.role)).toEqual(['system', 'user', 'assistant', 'user'])
    expect(only.headers['anthropic-beta']).toBeUndefined()
  })
})
