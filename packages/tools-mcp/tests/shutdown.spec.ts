import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { events, loadMcp, processAlive, setup, tempDir, testServer, until } from './setup.ts'

describe('shutdown during a tools/list_changed storm', () => {
  it('logs nothing about the listing it cut short, and the server is gone', async () => {
    const file = join(await tempDir(), 'events.jsonl')
    const { ctx, lines } = await setup()
    // list_changed every 5 ms, each re-listing held 2 s by the server: a listing is in flight at the dispose
    const plugin = await loadMcp(ctx, { servers: { storm: testServer({ tools: [{ name: 'a' }], stormMs: 5, relistDelayMs: 2000, events: file }) } })
    expect(ctx.tools.list()).toEqual(['mcp__storm__a'])
    await until(async () => (await events(file)).filter((event) => event.event === 'list').length >= 2, 'a re-listing in flight')
    const [{ pid }] = (await events(file)).filter((event) => event.event === 'start')
    await plugin.dispose()
    expect(lines.filter((line) => /^\[(warn|error)\]/.test(line))).toEqual([])
    expect(ctx.tools.list()).toEqual([])
    await until(() => !processAlive(pid), 'the server to exit')
  })
})
