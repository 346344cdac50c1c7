import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Context } from 'cordis'
import { events, loadMcp, setup, tempDir, testServer } from './setup.ts'
import { join } from 'node:path'

const LIMIT = 10 * 1024 * 1024

let ctx: Context
let plugin: Awaited<ReturnType<typeof loadMcp>>
let log: string
beforeAll(async () => {
  ctx = (await setup()).ctx
  log = join(await tempDir(), 'events.jsonl')
  plugin = await loadMcp(ctx, {
    servers: { big: testServer({ events: log, tools: [{ name: 'huge', replyBytes: 11_000_000 }, { name: 'fits', replyBytes: LIMIT - 1000 }, { name: 'small' }] }) },
  })
})
afterAll(() => plugin?.dispose())

describe('a stdio MCP server answering over the 10 MiB message limit', () => {
  it('fails that call with an error naming the size and the limit; the connection, the tools and the server stay', async () => {
    const starts = async () => (await events(log)).filter((event) => event.event === 'start').length
    expect(await starts()).toBe(1)
    const result = await ctx.tools.execute('mcp__big__huge', {})
    expect(result.isError).toBe(true)
    expect(result.output).toMatch(new RegExp(`failed on tool "huge": .*the server's answer is 110000\\d\\d bytes, over the limit of ${LIMIT} bytes per message; it was dropped`))
    expect(await ctx.tools.execute('mcp__big__small', {})).toEqual({ output: 'small called with {}', isError: false })
    expect(await starts()).toBe(1)
  }, 60_000)

  it('an answer just under the limit is read whole', async () => {
    const result = await ctx.tools.execute('mcp__big__fits', {})
    expect(result.isError).toBe(false)
    expect(result.output.length).toBeGreaterThan(LIMIT - 1100)
  }, 60_000)
})
