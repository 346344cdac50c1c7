import { afterEach, describe, expect, it } from 'vitest'
import { startEmulator } from '../src/emulator/index.ts'
import { INLINE_TOOLS_BETA, TOOL_CHANGES_BETA } from '../src/emulator/anthropic-tool-changes.ts'

const MODEL = 'tool-changes-model'
const PATH = '/anthropic/v1/messages'
const open: { close(): Promise<void> }[] = []
afterEach(async () => {
  for (const emulator of open.splice(0)) await emulator.close()
})

/** An emulator and a poster that sends `beta` (when given) as `anthropic-beta`. */
async function emulator() {
  const served = await startEmulator([MODEL])
  open.push(served)
  const post = async (body: object, beta?: string) => {
    const response = await fetch(`${served.origin}${PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'sk-test', 'anthropic-version': '2023-06-01', ...beta && { 'anthropic-beta': beta } },
      body: JSON.stringify({ model: MODEL, stream: true, max_tokens: 100, ...body }),
    })
    const text = await response.text()
    return { status: response.status, text, entry: response.ok ? served.ledger.at(-1)! : undefined }
  }
  return { served, post }
}

const mark = { cache_control: { type: 'ephemeral' } }
const schema = { type: 'object', properties: { path: { type: 'string' } } }
const tool = (name: string, words = 400) => ({ name, description: `${name}: ${'does things '.repeat(words)}`, input_schema: schema })
const BOTH = `${TOOL_CHANGES_BETA},${INLINE_TOOLS_BETA}`
const system = [{ type: 'text', text: `system ${'rules '.repeat(600)}`, ...mark }]
const first = { role: 'user', content: [{ type: 'text', text: 'one', ...mark }] }
const firstPlain = { role: 'user', content: [{ type: 'text', text: 'one' }] }
const reply = { role: 'assistant', content: [{ type: 'text', text: 'ok' }] }
const next = (text: string) => ({ role: 'user', content: [{ type: 'text', text, ...mark }] })
const addition = (name: string) => ({ role: 'system', content: [{ type: 'tool_addition', tool: { type: 'tool_reference', name } }] })

describe('the emulator follows Anthropic\'s mid-conversation tool-change rules on /anthropic/v1/messages', () => {
  it('keeps a deferred declaration out of the cached prefix until its tool_addition, which brings it in at its place', async () => {
    const { post } = await emulator()
    const base = { system, tools: [{ ...tool('read'), ...mark }] }
    const before = await post({ ...base, messages: [first] })
    expect(before.status).toBe(200)
    // the same request plus a deferred tool made available after the history: the whole earlier prefix is read
    const after = await post({ ...base, tools: [...base.tools, { ...tool('grep'), defer_loading: true }], messages: [firstPlain, reply, next('two'), addition('grep')] }, TOOL_CHANGES_BETA)
    expect(after.status).toBe(200)
    // (all but the closing marks after the first request's breakpoint, a token or two)
    expect(after.entry!.cachedTokens).toBeGreaterThanOrEqual(before.entry!.promptTokens - 2)
    expect(after.entry!.promptTokens).toBeGreaterThan(before.entry!.promptTokens + 400)
  })

  it('takes a tool_definition inline, tools untouched, and a tool_removal by reference', async () => {
    const { post } = await emulator()
    const body = { system, tools: [{ ...tool('read'), ...mark }], messages: [first, reply, next('two'), {
      role: 'system', content: [{ type: 'tool_addition', tool: { type: 'tool_definition', definition: tool('grep') } }, { type: 'tool_removal', tool: { type: 'tool_reference', name: 'read' } }],
    }] }
    expect((await post(body, BOTH)).status).toBe(200)
  })

  it.each([
    ['a tool_addition without its beta', [first, reply, next('two'), addition('grep')], undefined, `tool_addition without anthropic-beta ${TOOL_CHANGES_BETA}`],
    ['a tool_definition without the inline beta', [first, reply, next('two'), { role: 'system', content: [{ type: 'tool_addition', tool: { type: 'tool_definition', definition: tool('find') } }] }], TOOL_CHANGES_BETA, `tool_definition without anthropic-beta ${INLINE_TOOLS_BETA}`],
    ['a tool_removal without its beta', [first, reply, next('two'), { role: 'system', content: [{ type: 'tool_removal', tool: { type: 'tool_reference', name: 'read' } }] }], INLINE_TOOLS_BETA, `tool_removal without anthropic-beta ${TOOL_CHANGES_BETA}`],
    ['a system message after an assistant message', [first, reply, addition('grep'), next('two')], TOOL_CHANGES_BETA, 'must follow a user message'],
    ['two system messages in a row', [first, addition('grep'), addition('grep')], TOOL_CHANGES_BETA, 'must follow a user message, not "system"'],
    ['a breakpoint on a trailing system message', [firstPlain, { role: 'system', content: [{ type: 'tool_addition', tool: { type: 'tool_reference', name: 'grep' }, ...mark }] }], TOOL_CHANGES_BETA, 'cache_control on a trailing system message'],
  ])('refuses %s with HTTP 400', async (_, messages, beta, problem) => {
    const { served, post } = await emulator()
    const response = await post({ system, tools: [tool('read'), { ...tool('grep'), defer_loading: true }], messages }, beta)
    expect(response.status).toBe(400)
    expect(served.problems.join('\n')).toContain(problem)
  })

  it('refuses a deferred tool that no tool_addition makes available (and no tool search tool finds)', async () => {
    const { served, post } = await emulator()
    expect((await post({ system, tools: [tool('read'), { ...tool('grep'), defer_loading: true }], messages: [first] }, TOOL_CHANGES_BETA)).status).toBe(400)
    expect(served.problems.join('\n')).toContain('tool "grep" has defer_loading without a tool search tool or a tool_addition that makes it available')
  })
})
