import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { ChatMessage, ToolSchema } from 'dsh-core'
import { collect } from 'dsh-llm'
import { describe, expect, it } from 'vitest'
import { EmulatedCache, KEPT_BLOCKS, type ScriptedRequest } from '../src/emulated-cache.ts'
import { ask, failure, setup, tempDir } from './setup.ts'

const tool = (name: string): ToolSchema => ({ name, description: `The ${name} tool. ${'d'.repeat(200)}`, parameters: { type: 'object' } })
const SYSTEM = `You are a test. ${'s'.repeat(600)}`
const hi: ChatMessage[] = [{ role: 'user', text: 'hi' }]
const again: ChatMessage[] = [...hi, { role: 'assistant', text: 'echo: hi', toolCalls: [] }, { role: 'user', text: 'again' }]
const request = (messages: ChatMessage[], tools = [tool('alpha'), tool('beta')]): ScriptedRequest => ({ tools, system: SYSTEM, deferred: [], messages })
/** Whole 16-token blocks (64 characters) of the first `chars` characters. */
const blocksOf = (chars: number) => Math.floor(chars / 64) * 16
const textOf = (r: ScriptedRequest) => JSON.stringify({ tools: r.tools, system: r.system, deferred: r.deferred, messages: r.messages })
const commonChars = (a: string, b: string) => {
  let at = 0
  while (at < a.length && a[at] === b[at]) at++
  return at
}

describe('the scripted model\'s emulated prompt cache', () => {
  it('counts every prompt token from the request\'s text and reads the longest cached prefix in whole blocks', () => {
    const cache = new EmulatedCache()
    const first = cache.usage(request(hi), 'echo: hi')
    expect(first).toEqual({ inputTokens: Math.ceil(textOf(request(hi)).length / 4), outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0, emulated: true })
    const second = cache.usage(request(again), 'echo: again')
    expect(second.cacheReadTokens).toBe(blocksOf(commonChars(textOf(request(hi)), textOf(request(again)))))
    expect(second.cacheReadTokens / second.inputTokens).toBeGreaterThan(0.9)
  })

  it('tools come first: a tool that joins at the end keeps the tools before it cached, one removed at the front loses everything', () => {
    const cache = new EmulatedCache()
    cache.usage(request(hi), '')
    const joined = request(again, [tool('alpha'), tool('beta'), tool('gamma')])
    const kept = commonChars(textOf(request(hi)), textOf(joined))
    expect(kept).toBeLessThan(textOf(request(hi)).indexOf(SYSTEM))
    expect(cache.usage(joined, '').cacheReadTokens).toBe(blocksOf(kept))
    expect(new EmulatedCache().usage(request(hi), '').cacheReadTokens).toBe(0)
    const fresh = new EmulatedCache()
    fresh.usage(request(hi), '')
    expect(fresh.usage(request(again, [tool('beta')]), '').cacheReadTokens).toBe(0)
  })

  it('a new process starts cold without a file, and from the blocks of the last one with the same file', async () => {
    const file = join(await tempDir(), 'nested', 'scripted-echo.cache')
    new EmulatedCache(file).usage(request(hi), '')
    expect(new EmulatedCache().usage(request(again), '').cacheReadTokens).toBe(0)
    const resumed = new EmulatedCache(file).usage(request(again), '')
    expect(resumed.cacheReadTokens).toBe(blocksOf(commonChars(textOf(request(hi)), textOf(request(again)))))
    // one chained block hash a line, each stored once
    const lines = (await readFile(file, 'utf8')).trimEnd().split('\n')
    expect(new Set(lines).size).toBe(lines.length)
    expect(lines.length).toBe(Math.floor(textOf(request(again)).length / 64))
  })

  it('a cache file it cannot read or write leaves the cache cold and the answers unchanged', async () => {
    const folder = await tempDir()
    const cache = new EmulatedCache(folder)
    expect(cache.usage(request(hi), '').cacheReadTokens).toBe(0)
    expect(cache.usage(request(hi), '').cacheReadTokens).toBe(blocksOf(textOf(request(hi)).length))
  })

  it(`keeps the newest ${KEPT_BLOCKS} blocks once the file holds more than twice as many`, async () => {
    const file = join(await tempDir(), 'scripted-echo.cache')
    const old = Array.from({ length: 2 * KEPT_BLOCKS + 1 }, (_, i) => `old-${i}`)
    await writeFile(file, `${old.join('\n')}\n`)
    new EmulatedCache(file)
    const kept = (await readFile(file, 'utf8')).trimEnd().split('\n')
    expect(kept).toEqual(old.slice(-KEPT_BLOCKS))
  })

  it('the plugin keeps its cache in cacheFile, so a second plugin on the same file starts warm', async () => {
    const cacheFile = join(await tempDir(), 'scripted-echo.cache')
    const first = await setup({ cacheFile })
    await collect(first.ctx.llm.stream(ask(hi)))
    const second = await setup({ cacheFile })
    const usage = (await collect(second.ctx.llm.stream(ask(again)))).usage!
    expect(usage.emulated).toBe(true)
    expect(usage.cacheReadTokens).toBeGreaterThan(0)
    const cold = await setup()
    expect((await collect(cold.ctx.llm.stream(ask(again)))).usage!.cacheReadTokens).toBe(0)
  })

  it('refuses an empty cacheFile, naming the key', async () => {
    const error = await failure(setup({ cacheFile: ' ' }))
    expect(error.code).toBe('INVALID_CONFIG')
    expect(error.message).toBe('cacheFile must be a file path, got an empty string')
  })
})
