import { mkdir, realpath, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { BootedApp } from 'dsh-app-boot'
import { bootApp, publishedBin, sessionLog, tempDir } from './setup.ts'

// one app with two real published servers for the whole file: each start costs ~0.4 s
let app: BootedApp
let dir: string
let workspace: string

beforeAll(async () => {
  workspace = await realpath(await tempDir('dsh-mcp-ws-'))
  await mkdir(join(workspace, 'notes'))
  await writeFile(join(workspace, 'notes', 'todo.txt'), 'water the plants\n')
  await writeFile(join(workspace, 'readme.md'), '# hello\n')
  const booted = await bootApp([{
    id: 'mcp',
    name: 'dsh-tools-mcp',
    config: {
      servers: {
        filesystem: { command: process.execPath, args: [publishedBin('@modelcontextprotocol/server-filesystem'), workspace] },
        memory: { command: process.execPath, args: [publishedBin('@modelcontextprotocol/server-memory')], env: { MEMORY_FILE_PATH: join(workspace, 'memory.jsonl') } },
      },
    },
  }])
  app = booted.app
  dir = booted.dir
})

afterAll(async () => {
  await app?.dispose()
})

describe('published MCP servers', () => {
  it('hand their readOnlyHint and destructiveHint (only those) to the registered tools, outside the model-facing schema', () => {
    expect(app.ctx.tools.get('mcp__filesystem__read_text_file')?.annotations).toEqual({ readOnlyHint: true })
    expect(app.ctx.tools.get('mcp__filesystem__write_file')?.annotations).toEqual({ readOnlyHint: false, destructiveHint: true })
    expect(app.ctx.tools.get('mcp__filesystem__create_directory')?.annotations).toEqual({ readOnlyHint: false, destructiveHint: false })
    expect(Object.keys(app.ctx.tools.get('mcp__filesystem__write_file')!)).not.toContain('idempotentHint')
  })

  it('have registered their tools by the time boot() resolves', () => {
    const names = app.ctx.tools.list()
    expect(names).toContain('mcp__filesystem__list_directory')
    expect(names).toContain('mcp__filesystem__read_text_file')
    expect(names).toContain('mcp__memory__create_entities')
    expect(names.every((name) => name.startsWith('mcp__'))).toBe(true)
  })

  it('list a folder and read a real file through the model\'s tool calls', async () => {
    const agent = await app.ctx.agentLoop.createAgent({ id: 'fs' })
    const listed = await agent.prompt(`/call mcp__filesystem__list_directory ${JSON.stringify({ path: workspace })}`)
    expect(listed.reason).toBe('done')
    expect(listed.text).toContain('[DIR] notes')
    expect(listed.text).toContain('[FILE] readme.md')
    const read = await agent.prompt(`/call mcp__filesystem__read_text_file ${JSON.stringify({ path: join(workspace, 'notes', 'todo.txt') })}`)
    expect(read.text).toBe('tool mcp__filesystem__read_text_file returned: water the plants\n')
    const log = await sessionLog(dir, 'fs')
    const results = log.filter((event) => event.type === 'tool/result').map((event) => event.data)
    expect(results.map((result) => [result.name, result.isError])).toEqual([
      ['mcp__filesystem__list_directory', false],
      ['mcp__filesystem__read_text_file', false],
    ])
    const header = log.find((event) => event.type === 'request/header')!.data.header
    const names = header.tools.map((tool: { name: string }) => tool.name)
    expect(names).toEqual([...names].sort())
    expect(names).toContain('mcp__memory__read_graph')
  })

  it('report a refusal of the server as an error result and the turn goes on', async () => {
    const agent = await app.ctx.agentLoop.createAgent({ id: 'outside' })
    const result = await agent.prompt(`/call mcp__filesystem__read_text_file ${JSON.stringify({ path: '/etc/hostname' })}`)
    expect(result.reason).toBe('done')
    const log = await sessionLog(dir, 'outside')
    const toolResult = log.find((event) => event.type === 'tool/result')!.data
    expect(toolResult.isError).toBe(true)
    expect(toolResult.output).toMatch(/^tool "mcp__filesystem__read_text_file" failed: .*outside allowed directories/i)
  })

  it('keep state across calls of the memory server', async () => {
    const agent = await app.ctx.agentLoop.createAgent({ id: 'memory' })
    await agent.prompt(`/call mcp__memory__create_entities ${JSON.stringify({ entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote notes'] }] })}`)
    const graph = await agent.prompt('/call mcp__memory__read_graph {}')
    expect(graph.text).toContain('"name": "Ada"')
  })
})
