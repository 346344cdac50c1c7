import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { ToolChange } from 'dsh-tools'
import { events, loadMcp, setup, tempDir, testServer, until, type TestTool } from './setup.ts'

const SCHEMA = {
  type: 'object',
  properties: { path: { type: 'string', description: 'A path.' }, depth: { type: 'integer', minimum: 0 }, mode: { enum: ['b', 'a'] } },
  required: ['path', 'depth'],
  additionalProperties: false,
}

/** A deep copy with object keys reversed: the same schema in another byte order. */
function reverseKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reverseKeys)
  if (value === null || typeof value !== 'object') return value
  return Object.fromEntries(Object.entries(value).reverse().map(([key, member]) => [key, reverseKeys(member)]))
}

/** Object keys at every depth, in order: tells two key orders of one schema apart. */
function keyPaths(value: unknown, path = ''): string[] {
  if (Array.isArray(value)) return value.flatMap((item, index) => keyPaths(item, `${path}[${index}]`))
  if (value === null || typeof value !== 'object') return []
  return Object.entries(value).flatMap(([key, member]) => [`${path}.${key}`, ...keyPaths(member, `${path}.${key}`)])
}

async function start(server: object) {
  const { ctx } = await setup()
  const changes: ToolChange[] = []
  ctx.on('tools/change', (change) => { changes.push(change) })
  const plugin = await loadMcp(ctx, { servers: { s: server } })
  return { ctx, changes, plugin }
}

describe('schema key order', () => {
  it('registers the server\'s key order; the system prompt sends canonical bytes', async () => {
    const tools: TestTool[] = [{ name: 'read', description: 'Reads.', inputSchema: reverseKeys(SCHEMA) as object }]
    const { ctx, plugin } = await start(testServer({ tools }))
    // the SDK's parse puts the top-level keys it knows first; below that, the server's order arrives as sent
    const registered = ctx.tools.get('mcp__s__read')!.parameters as { properties: object }
    expect(keyPaths(registered.properties)).toEqual(keyPaths((reverseKeys(SCHEMA) as { properties: object }).properties))
    const [sent] = (await ctx.systemPrompt.assemble()).tools
    expect(JSON.stringify(sent!.parameters)).toBe('{"additionalProperties":false,"properties":{"depth":{"minimum":0,"type":"integer"},'
      + '"mode":{"enum":["b","a"]},"path":{"description":"A path.","type":"string"}},"required":["path","depth"],"type":"object"}')
    await plugin.dispose()
  })

  it('registers nothing for a relist that only changed key order', async () => {
    const file = join(await tempDir(), 'events.jsonl')
    const phases: TestTool[][] = [
      [{ name: 'read', description: 'Reads.', inputSchema: SCHEMA }],
      [{ name: 'read', description: 'Reads.', inputSchema: reverseKeys(SCHEMA) as object }, { name: 'marker' }],
    ]
    const { ctx, changes, plugin } = await start(testServer({ phases, events: file }))
    changes.length = 0
    const [{ pid }] = await events(file)
    process.kill(pid, 'SIGUSR1')
    await until(() => ctx.tools.has('mcp__s__marker'), 'the second list')
    expect(changes).toEqual([{ action: 'register', name: 'mcp__s__marker' }])
    await plugin.dispose()
  })

  it('shuffleKeys: two starts with two seeds list two key orders, and the assembly bytes are the same', async () => {
    const tools: TestTool[] = [{ name: 'read', description: 'Reads.', inputSchema: SCHEMA }]
    const runs: { keys: string[]; bytes: string; seed: number }[] = []
    for (const seed of [1, 2]) {
      const file = join(await tempDir(), 'events.jsonl')
      const { ctx, plugin } = await start(testServer({ tools, shuffleKeys: seed, events: file }))
      const [{ shuffleSeed }] = await events(file)
      runs.push({ keys: keyPaths(ctx.tools.get('mcp__s__read')!.parameters), bytes: JSON.stringify((await ctx.systemPrompt.assemble()).tools), seed: shuffleSeed })
      await plugin.dispose()
    }
    expect(runs.map((run) => run.seed)).toEqual([1, 2])
    expect(runs[0]!.keys).not.toEqual(runs[1]!.keys)
    expect([...runs[0]!.keys].sort()).toEqual([...runs[1]!.keys].sort())
    expect(runs[0]!.bytes).toBe(runs[1]!.bytes)
  })

  it('shuffleKeys: true draws a seed at each start', async () => {
    const file = join(await tempDir(), 'events.jsonl')
    const { plugin } = await start(testServer({ tools: [{ name: 'read' }], shuffleKeys: true, events: file }))
    const [{ shuffleSeed }] = await events(file)
    expect(Number.isInteger(shuffleSeed)).toBe(true)
    await plugin.dispose()
  })
})
