import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { appFolder, spawnApp } from './harness.ts'

// the published memory server, installed for dsh-tools-mcp's own tests
const fromToolsMcp = createRequire(fileURLToPath(new URL('../../../packages/tools-mcp/package.json', import.meta.url)))
const MEMORY_BIN = join(dirname(fromToolsMcp.resolve('@modelcontextprotocol/server-memory/package.json')), 'dist/index.js')

describe('a client that closes while the app still starts', () => {
  it('ends the app quietly: exit 0 and no "cannot create effect on inactive context" line per tool', { timeout: 30_000 }, async () => {
    const { dir, file } = await appFolder([
      '- { id: app, name: dsh-acp-demo, config: { persistenceRoot: ./sessions } }',
      '- id: mcp',
      '  name: dsh-tools-mcp',
      '  config:',
      '    servers:',
      `      memory: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(MEMORY_BIN)}], env: { MEMORY_FILE_PATH: ./memory.jsonl } }`,
    ].join('\n') + '\n')
    const app = spawnApp([file], { cwd: dir, env: { DSH_LOG_LEVEL: 'info' } })
    app.child.stdin.end('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}\n')
    expect(await app.exited).toBe(0)
    expect(app.stderr()).not.toContain('inactive context')
    expect(app.stderr()).not.toMatch(/\[error\]/)
  })
})
