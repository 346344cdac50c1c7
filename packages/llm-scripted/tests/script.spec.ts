import { relative } from 'node:path'
import { collect } from 'dsh-llm'
import { describe, expect, it } from 'vitest'
import { ask, failure, scriptFile, setup } from './setup.ts'

const prompt = ask([{ role: 'user', text: 'anything' }])

describe('script mode', () => {
  it('plays the responses in order, one per call', async () => {
    const file = await scriptFile({
      responses: [
        { toolCalls: [{ name: 'grep', arguments: { q: 'x' } }, { id: 'mine', name: 'read' }] },
        { text: 'all done', usage: { cacheReadTokens: 40, outputTokens: 3 } },
        { text: 'cut short', stopReason: 'max_tokens' },
      ],
    })
    const { ctx } = await setup({ script: file })
    const first = await collect(ctx.llm.stream(prompt))
    expect(first.toolCalls).toEqual([
      { id: 'call_1_1', name: 'grep', arguments: { q: 'x' } },
      { id: 'mine', name: 'read', arguments: {} },
    ])
    expect(first.stopReason).toBe('tool_use')
    const second = await collect(ctx.llm.stream(prompt))
    expect(second.text).toBe('all done')
    // given figures replace the estimate field by field; input never drops below the cached tokens
    expect(second.usage).toMatchObject({ outputTokens: 3, cacheReadTokens: 40, cacheWriteTokens: 0 })
    expect(second.usage!.inputTokens).toBeGreaterThanOrEqual(40)
    // the script's figures are its own: not marked emulated, and its cache figure is not the emulated one
    expect(second.usage).not.toHaveProperty('emulated')
    expect(await collect(ctx.llm.stream(prompt))).toMatchObject({ text: 'cut short', stopReason: 'max_tokens' })
  })

  it('marks a response\'s usage emulated when the script says so (a replay of the offline model\'s session)', async () => {
    const file = await scriptFile({ responses: [{ text: 'a', usage: { inputTokens: 9, outputTokens: 1, cacheReadTokens: 8, cacheWriteTokens: 0, emulated: true } }] })
    const { ctx } = await setup({ script: file })
    expect((await collect(ctx.llm.stream(prompt))).usage).toEqual({ inputTokens: 9, outputTokens: 1, cacheReadTokens: 8, cacheWriteTokens: 0, emulated: true })
  })

  it('fails a call past the end, naming the file and the count', async () => {
    const file = await scriptFile({ responses: [{ text: 'only one' }] })
    const { ctx } = await setup({ script: file })
    await collect(ctx.llm.stream(prompt))
    const error = await failure(collect(ctx.llm.stream(prompt)))
    expect(error.code).toBe('ADAPTER_ERROR')
    expect(error.message).toContain(`script ${file} has 1 response(s); model call 2 has none left`)
    expect(error.cause.code).toBe('SCRIPT_EXHAUSTED')
  })

  it('raises a scripted error as an adapter error', async () => {
    const { ctx } = await setup({ script: await scriptFile({ responses: [{ error: 'rate limited' }] }) })
    const error = await failure(collect(ctx.llm.stream(prompt)))
    expect(error.code).toBe('ADAPTER_ERROR')
    expect(error.message).toBe('provider "scripted" failed for model "scripted-echo": rate limited')
  })

  it('stops waiting when the signal aborts during a delay', async () => {
    const { ctx } = await setup({ script: await scriptFile({ responses: [{ text: 'late', delayMs: 60_000 }] }) })
    const adapter = ctx.llm.resolve('scripted-echo')
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 20)
    const started = Date.now()
    const error = await failure(collect(adapter.stream({ ...prompt, signal: controller.signal })))
    expect(Date.now() - started).toBeLessThan(1000)
    expect(error.code).toBe('CANCELLED')
  })

  it('waits delayMs before answering', async () => {
    const { ctx } = await setup({ script: await scriptFile({ responses: [{ text: 'slow', delayMs: 80 }] }) })
    const started = Date.now()
    expect((await collect(ctx.llm.stream(prompt))).text).toBe('slow')
    expect(Date.now() - started).toBeGreaterThanOrEqual(70)
  })

  it('resolves a relative script path against the working directory', async () => {
    const file = await scriptFile({ responses: [{ text: 'from a relative path' }] })
    const { ctx } = await setup({ script: relative(process.cwd(), file) })
    expect((await collect(ctx.llm.stream(prompt))).text).toBe('from a relative path')
  })
})

describe('script validation', () => {
  it('names a missing file', async () => {
    const error = await failure(setup({ script: '/nonexistent/dsh/script.json' }))
    expect(error.code).toBe('INVALID_SCRIPT')
    expect(error.message).toContain('cannot read script /nonexistent/dsh/script.json')
  })

  it('names a file that is not JSON', async () => {
    const file = await scriptFile('{ responses: [')
    const error = await failure(setup({ script: file }))
    expect(error.message).toContain(`script ${file} is not valid JSON`)
  })

  it.each([
    [[], 'the top level must be an object with a "responses" array'],
    [{ replies: [] }, 'replies is not a known field; valid: responses'],
    [{ responses: {} }, 'responses must be an array'],
    [{ responses: ['hi'] }, 'responses[0] must be an object'],
    [{ responses: [{}] }, 'responses[0] must have "text", a non-empty "toolCalls" or "error"'],
    [{ responses: [{ text: 'ok' }, { text: 3 }] }, 'responses[1].text must be a string'],
    [{ responses: [{ text: 'x', toolcalls: [] }] }, 'responses[0].toolcalls is not a known field; valid: text, toolCalls, usage, stopReason, error, delayMs'],
    [{ responses: [{ toolCalls: {} }] }, 'responses[0].toolCalls must be an array'],
    [{ responses: [{ toolCalls: [{ name: '' }] }] }, 'responses[0].toolCalls[0].name must be a non-empty string'],
    [{ responses: [{ toolCalls: [{ name: 'a', arguments: [1] }] }] }, 'responses[0].toolCalls[0].arguments must be a JSON object'],
    [{ responses: [{ toolCalls: [{ name: 'a', id: 7 }] }] }, 'responses[0].toolCalls[0].id must be a non-empty string'],
    [{ responses: [{ toolCalls: [{ name: 'a', args: {} }] }] }, 'responses[0].toolCalls[0].args is not a known field; valid: id, name, arguments'],
    [{ responses: [{ text: 'x', usage: { inputTokens: -1 } }] }, 'responses[0].usage.inputTokens must be an integer ≥ 0'],
    [{ responses: [{ text: 'x', usage: { cached: 1 } }] }, 'responses[0].usage.cached is not a known field; valid: inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens, emulated'],
    [{ responses: [{ text: 'x', usage: { emulated: false } }] }, 'responses[0].usage.emulated must be true or absent (figures no provider reported)'],
    [{ responses: [{ text: 'x', usage: 5 }] }, 'responses[0].usage must be an object'],
    [{ responses: [{ text: 'x', stopReason: 'stop' }] }, 'responses[0].stopReason must be one of end_turn, tool_use, max_tokens'],
    [{ responses: [{ error: '' }] }, 'responses[0].error must be a non-empty string'],
    [{ responses: [{ text: 'x', delayMs: -5 }] }, 'responses[0].delayMs must be a finite number ≥ 0'],
  ])('rejects %j', async (content, message) => {
    const file = await scriptFile(content)
    const error = await failure(setup({ script: file }))
    expect(error.code).toBe('INVALID_SCRIPT')
    expect(error.message).toBe(`script ${file}: ${message}`)
  })
})
