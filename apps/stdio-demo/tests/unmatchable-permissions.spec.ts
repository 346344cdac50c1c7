import { createRequire } from 'node:module'
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { run, writeApp } from './setup.ts'

/** The bin of @modelcontextprotocol/server-filesystem, installed for these tests. */
const FILESYSTEM_SERVER = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-filesystem/dist/index.js')
/** With this server name, `mcp__<server>__list_allowed_directories` is 73 characters: the tool gets a hashed name. */
const LONG_SERVER = 'the-filesystem-of-the-project-under-review'

/** An app running the real filesystem MCP server as `server`, with `permissions`. */
async function mcpApp(server: string, permissions: Record<string, unknown>) {
  const app = await writeApp([
    `- { id: app, name: dsh-stdio-demo, config: ${JSON.stringify({ persistenceRoot: './sessions', permissions })} }`,
    '- id: mcp',
    '  name: dsh-tools-mcp',
    '  config:',
    `    servers: { ${JSON.stringify(server)}: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(FILESYSTEM_SERVER)}, ./workspace] } }`,
  ].join('\n'))
  await mkdir(join(app.dir, 'workspace'))
  return app
}

/** Boots `app` with a deny, expects the one-line refusal, and returns the name it says the model sees. */
async function refusedDeny(file: string, deny: string): Promise<string> {
  const exit = await run([file], '/call mcp__x__y {}\n')
  expect(exit.code).toBe(1)
  expect(exit.stdout).toBe('')
  const lines = exit.stderr.trimEnd().split('\n')
  expect(lines).toHaveLength(1)
  expect(lines[0]).toContain(`failed to start: permissions.deny[0] is ${JSON.stringify(deny)}, which can never match: no tool can have this name`)
  return /as "([^"]+)": write that$/.exec(lines[0]!)![1]!
}

/** Runs one call of `name` with the deny in place: the call is refused by that deny and does not run. */
async function expectDenied(server: string, name: string) {
  const { file } = await mcpApp(server, { default: 'allow', deny: [name] })
  const exit = await run([file], `/call ${name} {}\n`)
  expect(exit.stdout).toBe(`tool ${name} returned: tool ${JSON.stringify(name)} is denied by the permission policy (permissions.deny: ${JSON.stringify(name)}); the call did not run\n`)
  expect(exit.code).toBe(0)
}

describe('permission patterns no tool name can have are refused at boot (a real MCP server)', () => {
  it('a deny written with the configured server name "my.fs" names the real mcp__my_fs__ name, and that name denies', { timeout: 30_000 }, async () => {
    const deny = 'mcp__my.fs__list_allowed_directories'
    const { file } = await mcpApp('my.fs', { default: 'allow', deny: [deny] })
    const real = await refusedDeny(file, deny)
    expect(real).toBe('mcp__my_fs__list_allowed_directories')
    await expectDenied('my.fs', real)
  })

  it('a deny on the long original name names the hashed 64-character name, and that name denies', { timeout: 30_000 }, async () => {
    const deny = `mcp__${LONG_SERVER}__list_allowed_directories`
    const { file } = await mcpApp(LONG_SERVER, { default: 'allow', deny: [deny] })
    const real = await refusedDeny(file, deny)
    expect(real).toMatch(new RegExp(`^mcp__${LONG_SERVER}__list_[^_]*_[0-9a-f]{8}$`))
    expect(real).toHaveLength(64)
    await expectDenied(LONG_SERVER, real)
  })

  it('refuses an allow group with the configured server name and one whose prefix is past the 55 characters MCP names keep', { timeout: 20_000 }, async () => {
    const dotted = await run([(await mcpApp('my.fs', { allow: ['mcp__my.fs__*'] })).file], 'hello\n')
    expect(dotted.code).toBe(1)
    expect(dotted.stderr).toMatch(/permissions\.allow\[0\] is "mcp__my\.fs__\*", which can never match: no tool name starts with "mcp__my\.fs__" .*; MCP names have "mcp__my_fs__\*" instead: write that\n$/)
    const long = `mcp__${LONG_SERVER}__list_allowed_*`
    const cut = await run([(await mcpApp(LONG_SERVER, { deny: [long] })).file], 'hello\n')
    expect(cut.code).toBe(1)
    expect(cut.stderr).toContain(`permissions.deny[0] is ${JSON.stringify(long)}, which can never match: MCP tool names longer than 64 characters keep only their first 55`)
    expect(cut.stderr).toContain(`write at most 55: ${JSON.stringify(long.slice(0, 55) + '*')}`)
  })
})
