import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { testServer } from '../../../packages/tools-mcp/src/testing.ts'
import { App, sessionEvents, writeApp } from './setup.ts'

// dsh-tools-mcp by its built file: the stdio demo does not depend on the package
const TOOLS_MCP = fileURLToPath(new URL('../../../packages/tools-mcp/dist/index.js', import.meta.url))

async function until(test: () => Promise<boolean>): Promise<void> {
  while (!(await test())) await new Promise((resolve) => setTimeout(resolve, 20))
}

describe('a signal while a piped turn runs a tool', () => {
  it('ends that turn cancelled and serves no later line: no turn meets the tool sources going away', { timeout: 30_000 }, async () => {
    const { file, dir, sessions } = await writeApp('')
    const calls = join(dir, 'mcp-events.jsonl')
    const server = testServer({ tools: [{ name: 'slow', delayMs: 10_000 }], events: calls })
    await writeFile(file, [
      `- { id: app, name: dsh-stdio-demo, config: { persistenceRoot: ./sessions, permissions: { default: allow } } }`,
      `- { id: mcp, name: ${JSON.stringify(TOOLS_MCP)}, config: { servers: { s: ${JSON.stringify(server)} } } }`,
    ].join('\n'))
    const app = new App([file], { env: { LANG: 'en_US.UTF-8', LC_ALL: '', LC_MESSAGES: '' } })
    // the MCP server's tool and the harness's agent tool
    await app.waitForTools(2)
    app.send('/call mcp__s__slow {}')
    app.send('a line read before the signal')
    await until(async () => (await readFile(calls, 'utf8').catch(() => '')).includes('call'))
    const { code, stderr } = await app.stop('SIGTERM')
    expect(code).toBe(0)
    // before: a second turn started on the stopping app, and printed what it met there, e.g.
    // `error: unknown model "scripted-echo"` or `(Tool removed: mcp__s__slow)`
    expect(stderr).toBe('→ mcp__s__slow {}\n← (error) tool "mcp__s__slow" was cancelled\nerror: the turn was cancelled\n')
    const events = await sessionEvents(sessions)
    expect(events.filter((event) => event.type === 'turn/start')).toHaveLength(1)
    expect(events.filter((event) => event.type === 'developer/message')).toEqual([])
    expect(events.at(-1)).toMatchObject({ type: 'turn/end', data: { turn: 1, reason: 'cancelled' } })
  })
})
