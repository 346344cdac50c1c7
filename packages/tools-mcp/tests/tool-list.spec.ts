import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Context } from 'cordis'
import { events, loadMcp, setup, sleep, tempDir, testServer, type TestTool } from './setup.ts'

const RECURSIVE = { type: 'object', properties: { name: { type: 'string' }, child: { $ref: '#' } }, required: ['name'] }
const WITH_DEFS = {
  type: 'object',
  properties: { root: { $ref: '#/$defs/node' } },
  $defs: { node: { type: 'object', properties: { value: { type: 'number' }, next: { $ref: '#/$defs/node' } }, required: ['value'] } },
}

const tools: TestTool[] = [
  { name: 'good' },
  { name: 'no_schema', inputSchema: null },
  { name: 'string_root', inputSchema: { type: 'string' } },
  { name: 'bad_properties', inputSchema: { type: 'object', properties: 5 } },
  { name: 'bad_output', outputSchema: { type: 'object', properties: { a: { type: 'strnig' } } } },
  { name: 'typed_output', outputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] }, reply: { content: [], structuredContent: { n: 'not a number' } } },
  { name: 'tree', inputSchema: RECURSIVE },
  { name: 'list', inputSchema: WITH_DEFS },
]

let ctx: Context
let lines: string[]
let plugin: Awaited<ReturnType<typeof loadMcp>>
let log: string
beforeAll(async () => {
  ;({ ctx, lines } = await setup())
  log = join(await tempDir(), 'events.jsonl')
  plugin = await loadMcp(ctx, { servers: { mixed: testServer({ phases: [tools, tools], events: log }) }, restartDelayMs: 50, maxRestartDelayMs: 100 })
})
afterAll(() => plugin?.dispose())

const starts = async () => (await events(log)).filter((event) => event.event === 'start')

describe('a tools/list with tools the protocol refuses', () => {
  it('registers the valid tools and leaves out each bad one with one warning naming the server and the tool', async () => {
    expect(ctx.tools.list()).toEqual(['mcp__mixed__good', 'mcp__mixed__list', 'mcp__mixed__tree', 'mcp__mixed__typed_output'])
    expect(lines.filter((line) => !line.startsWith('[debug]'))).toEqual([
      '[warn] MCP server "mixed": tool "no_schema" is left out: it has no inputSchema; its other tools are registered',
      '[warn] MCP server "mixed": tool "string_root" is left out: its inputSchema has type "string", not "object"; its other tools are registered',
      expect.stringMatching(/^\[warn\] MCP server "mixed": tool "bad_properties" is left out: inputSchema\.properties: .+; its other tools are registered$/),
      expect.stringMatching(/^\[warn\] MCP server "mixed": tool "bad_output" is left out: its outputSchema cannot be compiled: .*strnig.*; its other tools are registered$/),
    ])
  })

  it('does not restart the server, and a relist does not repeat the warnings', async () => {
    const [{ pid }] = await starts()
    const before = lines.length
    process.kill(pid, 'SIGUSR1')
    await sleep(300)
    expect(await starts()).toHaveLength(1)
    expect(lines.slice(before).filter((line) => line.startsWith('[warn]') || line.startsWith('[error]'))).toEqual([])
    expect(ctx.tools.list()).toHaveLength(4)
  })

  it('still checks structured content against a kept tool\'s outputSchema', async () => {
    const result = await ctx.tools.execute('mcp__mixed__typed_output', {})
    expect(result.isError).toBe(true)
    expect(result.output).toMatch(/^tool "mcp__mixed__typed_output" failed: MCP server "mixed" failed on tool "typed_output": .*Structured content does not match the tool's output schema/)
  })
})

describe('recursive input schemas', () => {
  it('accepts a call against {"$ref": "#"} and checks the nested arguments', async () => {
    const ok = await ctx.tools.execute('mcp__mixed__tree', { name: 'a', child: { name: 'b', child: { name: 'c' } } })
    expect(ok).toEqual({ output: 'tree called with {"name":"a","child":{"name":"b","child":{"name":"c"}}}', isError: false })
    const bad = await ctx.tools.execute('mcp__mixed__tree', { name: 'a', child: { child: { name: 3 } } })
    expect(bad.isError).toBe(true)
    expect(bad.output).toContain('/child must have required property \'name\'')
    expect(bad.output).toContain('/child/child/name must be string')
  })

  it('accepts a call against a $ref into $defs and checks the nested arguments', async () => {
    const ok = await ctx.tools.execute('mcp__mixed__list', { root: { value: 1, next: { value: 2 } } })
    expect(ok.isError).toBe(false)
    const bad = await ctx.tools.execute('mcp__mixed__list', { root: { value: 1, next: { value: 'two' } } })
    expect(bad.isError).toBe(true)
    expect(bad.output).toContain('/root/next/value must be number')
    // the invalid call is refused before it reaches the server
    expect((await events(log)).filter((event) => event.event === 'call' && event.name === 'list')).toHaveLength(1)
  })
})
