import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { ToolSourceStatus } from 'dsh-tools'
import { meaningfulTail } from '../src/stderr-tail.ts'
import { loadMcp, setup, tempDir, testServer, until, TEST_SERVER, type TestTool } from './setup.ts'

const tool = (name: string, extra: Partial<TestTool> = {}): TestTool => ({ name, description: `The ${name} tool.`, ...extra })

async function start(servers: Record<string, unknown>) {
  const { ctx, lines } = await setup()
  const statuses: ToolSourceStatus[] = []
  ctx.on('tools/source', (status) => { statuses.push(status) })
  const plugin = await loadMcp(ctx, { servers, restartDelayMs: 50, maxRestartDelayMs: 200 })
  return { ctx, lines, statuses, plugin }
}

describe('the line of stderr that says why a server failed', () => {
  it('is the error line of a Node stack, not its last bytes', () => {
    const stderr = [
      'node:internal/modules/cjs/loader:1210', '  throw err;', '  ^', '',
      "Error: Cannot find module '/srv/mcp/server.js'",
      '    at Module._resolveFilename (node:internal/modules/cjs/loader:1207:15)',
      '    at node:internal/main/run_main_module:28:49 {', "  code: 'MODULE_NOT_FOUND',", '  requireStack: []', '}', '', 'Node.js v20.20.2', '',
    ].join('\n')
    expect(meaningfulTail(stderr)).toBe("Error: Cannot find module '/srv/mcp/server.js'")
  })

  it("is a Python traceback's last line, and without an error line the last lines that are not noise", () => {
    expect(meaningfulTail('Traceback (most recent call last):\n  File "<string>", line 1, in <module>\nModuleNotFoundError: No module named \'mcp\'\n'))
      .toBe("ModuleNotFoundError: No module named 'mcp'")
    expect(meaningfulTail('starting\ncannot open the database\n')).toBe('starting | cannot open the database')
    expect(meaningfulTail('')).toBe('')
  })
})

describe('a server outage, as the person using the app hears of it', () => {
  it('a wrong script path is one `failed` status carrying the Cannot find module line, and calls to its tools say it is down', async () => {
    const dir = await tempDir()
    const { ctx, statuses, plugin } = await start({ ghost: { command: process.execPath, args: [join(dir, 'no-such-server.js')] } })
    await new Promise((resolve) => setTimeout(resolve, 400)) // several retries at 50…200 ms: still one status
    expect(statuses).toEqual([{
      source: 'MCP server "ghost"',
      prefix: 'mcp__ghost__',
      event: 'failed',
      message: `MCP server "ghost" failed to start: Error: Cannot find module '${join(dir, 'no-such-server.js')}'; retrying`,
    }])
    expect(ctx.tools.downSources()).toEqual(statuses)
    const result = await ctx.tools.execute('mcp__ghost__anything', {})
    expect(result).toEqual({
      isError: true,
      output: `unknown tool "mcp__ghost__anything": its source is down (${statuses[0]!.message}); its tools come back when it reconnects; available tools: (none)`,
    })
    // another unknown name is not blamed on the server
    expect((await ctx.tools.execute('read_file', {})).output).toBe('unknown tool "read_file"; available tools: (none)')
    await plugin.dispose()
    expect(ctx.tools.downSources()).toEqual([])
  })

  it('a crash is one `exited` status, its return one `reconnected` status, and then it is no longer down', async () => {
    const { ctx, statuses, plugin } = await start({ fragile: testServer({ tools: [tool('crash', { exit: true }), tool('ok')] }) })
    expect(statuses).toEqual([])
    await ctx.tools.execute('mcp__fragile__crash', {})
    await until(() => statuses.length === 2, 'the exit and the return')
    expect(statuses.map((status) => [status.event, status.message])).toEqual([
      ['exited', 'MCP server "fragile" exited; its tools are gone until it restarts'],
      ['reconnected', 'MCP server "fragile" is back with 2 tools'],
    ])
    expect(ctx.tools.downSources()).toEqual([])
    await plugin.dispose()
  })

  it('a server that fails to start and later comes up says so once each', async () => {
    const dir = await tempDir()
    const marker = join(dir, 'ready')
    const script = join(dir, 'late.sh')
    await writeFile(script, `if [ -f '${marker}' ]; then exec '${process.execPath}' '${TEST_SERVER}'; fi\necho 'Error: the database is not up yet' >&2\nexit 1\n`)
    const { env } = testServer({ tools: [tool('x')] })
    const { ctx, statuses, plugin } = await start({ late: { command: 'sh', args: [script], env } })
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(statuses.map((status) => status.message)).toEqual(['MCP server "late" failed to start: Error: the database is not up yet; retrying'])
    await writeFile(marker, '')
    await until(() => ctx.tools.has('mcp__late__x'), 'the server to come up', 5000)
    expect(statuses.map((status) => status.event)).toEqual(['failed', 'reconnected'])
    await plugin.dispose()
  })
})
