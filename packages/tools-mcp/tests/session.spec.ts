import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { BootedApp } from 'dsh-app-boot'
import { bootApp, events, sessionLog, tempDir, testServer, until, type TestTool } from './setup.ts'

const tool = (name: string, extra: Partial<TestTool> = {}): TestTool => ({ name, description: `The ${name} tool.`, ...extra })

// one app for the file: four small servers, each driven by one test
let app: BootedApp
let dir: string
let files: Record<'live' | 'fragile' | 'patient', string>

beforeAll(async () => {
  const folder = await tempDir()
  files = { live: join(folder, 'live.jsonl'), fragile: join(folder, 'fragile.jsonl'), patient: join(folder, 'patient.jsonl') }
  const booted = await bootApp([{
    id: 'mcp',
    name: 'dsh-tools-mcp',
    config: {
      // slow enough restarts that a turn fits between the crash and the comeback
      restartDelayMs: 1500,
      servers: {
        live: testServer({ phases: [[tool('a'), tool('b')], [tool('a'), tool('c')]], events: files.live }),
        fragile: testServer({ tools: [tool('f')], events: files.fragile }),
        sluggish: { ...testServer({ tools: [tool('wait', { delayMs: 5000 })] }), callTimeoutMs: 200 },
        patient: testServer({ tools: [tool('wait', { delayMs: 20_000 })], events: files.patient }),
      },
    },
  }])
  app = booted.app
  dir = booted.dir
})

afterAll(async () => {
  await app?.dispose()
})

const pidOf = async (file: string) => (await events(file)).filter((event) => event.event === 'start').at(-1)!.pid as number
const ofType = (log: { type: string; data: any }[], type: string) => log.filter((event) => event.type === type).map((event) => event.data)

describe('MCP tools in a session', () => {
  it('a tools/list_changed between turns gives exactly one developer/message and one change header', async () => {
    const agent = await app.ctx.agentLoop.createAgent({ id: 'live' })
    await agent.prompt('hello')
    process.kill(await pidOf(files.live), 'SIGUSR1')
    await until(() => app.ctx.tools.has('mcp__live__c') && !app.ctx.tools.has('mcp__live__b'), 'the new list')
    await agent.prompt('hello again')
    const log = await sessionLog(dir, 'live')
    const headers = ofType(log, 'request/header')
    expect(headers.map((header) => header.reason)).toEqual(['initial', 'change'])
    const messages = ofType(log, 'developer/message')
    expect(messages).toHaveLength(1)
    expect(messages[0]).toMatchObject({ source: 'tool-registry', added: ['mcp__live__c'], removed: ['mcp__live__b'] })
  })

  it('a crashed server\'s tools leave the next request, and come back after its restart', async () => {
    const agent = await app.ctx.agentLoop.createAgent({ id: 'crash' })
    await agent.prompt('hello')
    process.kill(await pidOf(files.fragile), 'SIGKILL')
    await until(() => !app.ctx.tools.has('mcp__fragile__f'), 'the removal')
    await agent.prompt('while it is down')
    await until(() => app.ctx.tools.has('mcp__fragile__f'), 'the re-addition', 15_000)
    await agent.prompt('after the restart')
    const log = await sessionLog(dir, 'crash')
    expect(ofType(log, 'request/header').map((header) => header.reason)).toEqual(['initial', 'change', 'change'])
    expect(ofType(log, 'developer/message').map(({ added, removed }) => ({ added, removed }))).toEqual([
      { added: [], removed: ['mcp__fragile__f'] },
      { added: ['mcp__fragile__f'], removed: [] },
    ])
    const [first, , third] = ofType(log, 'request/header')
    expect(JSON.stringify(third.header)).toBe(JSON.stringify(first.header))
  })

  it('a call past callTimeoutMs is an error result naming server and tool, and the turn goes on', async () => {
    const agent = await app.ctx.agentLoop.createAgent({ id: 'timeout' })
    const result = await agent.prompt('/call mcp__sluggish__wait {}')
    expect(result.reason).toBe('done')
    expect(result.text).toBe('tool mcp__sluggish__wait returned: tool "mcp__sluggish__wait" failed: MCP server "sluggish" did not answer tool "wait" within 200 ms')
    const [toolResult] = ofType(await sessionLog(dir, 'timeout'), 'tool/result')
    expect(toolResult).toMatchObject({ name: 'mcp__sluggish__wait', isError: true })
  })

  it('cancelling the turn sends MCP cancellation for the running call', async () => {
    const agent = await app.ctx.agentLoop.createAgent({ id: 'cancel' })
    const turn = agent.prompt('/call mcp__patient__wait {}')
    await until(async () => (await events(files.patient)).some((event) => event.event === 'call'), 'the call to reach the server')
    agent.cancel()
    expect((await turn).reason).toBe('cancelled')
    await until(async () => (await events(files.patient)).some((event) => event.event === 'cancelled'), 'the cancellation to reach the server')
  })
})
