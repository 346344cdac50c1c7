import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { AppBootError, boot } from 'dsh-app-boot'
import { checkConfig } from '../src/config.ts'
import { ToolsMcpError } from '../src/errors.ts'
import { resolvePlugin, tempDir } from './setup.ts'

/** Boots a YAML app file holding only the spine and one dsh-tools-mcp entry; returns the AppBootError message. */
async function bootFailure(config: string): Promise<string> {
  const dir = await tempDir()
  const file = join(dir, 'app.yml')
  await writeFile(file, `- { id: spine, name: dsh-harness, config: { persist: false } }\n- id: mcp\n  name: dsh-tools-mcp\n  config:\n${config.replace(/^/gm, '    ')}\n`)
  let error: unknown
  try {
    const app = await boot({ file, resolve: resolvePlugin, logLevel: 'silent' })
    await app.dispose()
  } catch (thrown) {
    error = thrown
  }
  expect(error).toBeInstanceOf(AppBootError)
  const message = (error as Error).message
  expect(message.split('\n')).toHaveLength(1)
  expect(message).toContain(`${file}: entry "mcp" (dsh-tools-mcp): `)
  return message.slice(message.indexOf('(dsh-tools-mcp): ') + '(dsh-tools-mcp): '.length)
}

const cases: [string, string, string][] = [
  ['servers that is a list', 'servers: [a]', 'invalid config: $.servers expected object but got a'],
  ['a server that is a string', 'servers: { fs: node }', 'invalid config: $.servers.fs expected object but got node'],
  ['a command that is a number', 'servers: { fs: { command: 5 } }', 'invalid config: $.servers.fs.command expected string but got 5'],
  ['args that are a string', 'servers: { fs: { command: node, args: x.js } }', 'invalid config: $.servers.fs.args expected array but got x.js'],
  ['an arg that is a mapping', 'servers: { fs: { command: node, args: [{ a: 1 }] } }', 'invalid config: $.servers.fs.args[0] expected string but got [object Object]'],
  ['env that is a list', 'servers: { fs: { command: node, env: [A] } }', 'invalid config: $.servers.fs.env expected object but got A'],
  ['an env value that is a number', 'servers: { fs: { command: node, env: { A: 1 } } }', 'invalid config: $.servers.fs.env.A expected string but got 1'],
  ['a cwd that is a number', 'servers: { fs: { command: node, cwd: 1 } }', 'invalid config: $.servers.fs.cwd expected string but got 1'],
  ['a url that is a number', 'servers: { web: { url: 8931 } }', 'invalid config: $.servers.web.url expected string but got 8931'],
  ['headers that are a string', 'servers: { web: { url: "http://127.0.0.1:1/mcp", headers: x } }', 'invalid config: $.servers.web.headers expected object but got x'],
  ['a header value that is a number', 'servers: { web: { url: "http://127.0.0.1:1/mcp", headers: { X: 1 } } }', 'invalid config: $.servers.web.headers.X expected string but got 1'],
  ['a startupTimeoutMs of 0', 'servers: { fs: { command: node, startupTimeoutMs: 0 } }', 'invalid config: $.servers.fs.startupTimeoutMs expected number >= 1 but got 0'],
  ['a fractional callTimeoutMs', 'servers: { fs: { command: node, callTimeoutMs: 1.5 } }', 'invalid config: $.servers.fs.callTimeoutMs expected number multiple of 1 but got 1.5'],
  ['a callTimeoutMs past what timers can hold', 'servers: { fs: { command: node, callTimeoutMs: 2147483648 } }', 'invalid config: $.servers.fs.callTimeoutMs expected number <= 2147483647 but got 2147483648'],
  ['a disabled that is a string', 'servers: { fs: { command: node, disabled: "yes" } }', 'invalid config: $.servers.fs.disabled expected boolean but got yes'],
  ['a restartDelayMs of 0', 'restartDelayMs: 0', 'invalid config: $.restartDelayMs expected number >= 1 but got 0'],
  ['a maxRestartDelayMs that is a string', 'maxRestartDelayMs: soon', 'invalid config: $.maxRestartDelayMs expected number but got soon'],
  ['a misspelt top-level key', 'server: {}', 'invalid config: unknown key $.server; valid keys: servers, restartDelayMs, maxRestartDelayMs'],
  ['a maxRestartDelayMs below restartDelayMs', 'restartDelayMs: 1000\nmaxRestartDelayMs: 10', 'failed to start: maxRestartDelayMs 10 is below restartDelayMs 1000'],
  ['a misspelt server key', 'servers: { fs: { comand: node } }', 'failed to start: server "fs": unknown key "comand"; valid keys: command, args, env, cwd, url, headers, startupTimeoutMs, callTimeoutMs, disabled'],
  ['a server with neither command nor url', 'servers: { fs: { args: [a] } }', 'failed to start: server "fs": needs "command" (a stdio server) or "url" (a Streamable HTTP server)'],
  ['a server with both command and url', 'servers: { fs: { command: node, url: "http://127.0.0.1:1/mcp" } }', 'failed to start: server "fs": has both stdio keys (command) and HTTP keys (url); a server is one or the other'],
  ['an empty command', 'servers: { fs: { command: " " } }', 'failed to start: server "fs": command is an empty string'],
  ['a url that is not a URL', 'servers: { web: { url: "127.0.0.1:1" } }', 'failed to start: server "web": url "127.0.0.1:1" is not a URL; expected http://… or https://…'],
  ['a url without a scheme', 'servers: { web: { url: "/mcp" } }', 'failed to start: server "web": url "/mcp" is not a URL'],
  ['a file: url', 'servers: { web: { url: "file:///tmp/mcp" } }', 'failed to start: server "web": url "file:///tmp/mcp" must use http: or https:, not file:'],
  ['a ws: url', 'servers: { web: { url: "ws://127.0.0.1:1/mcp" } }', 'failed to start: server "web": url "ws://127.0.0.1:1/mcp" must use http: or https:, not ws:'],
  ['a server name with a double underscore', 'servers: { "a__b": { command: node } }', 'failed to start: server "a__b": the name becomes "a__b" in tool names; use letters, digits, "-" and single "_" inside (no "__", no "_" at either end)'],
  ['a server name that maps to "_"', 'servers: { "é": { command: node } }', 'failed to start: server "é": the name becomes "_" in tool names'],
  ['two server names that map to one', 'servers: { "a.b": { command: node }, "a b": { command: node } }', 'failed to start: server "a b": the name becomes "a_b" in tool names, as server "a.b" does; rename one'],
]

describe('a wrong value in the app file', () => {
  it.each(cases)('fails the boot with one line for %s', async (_, config, expected) => {
    expect(await bootFailure(config)).toContain(expected)
  })

  it('is reported even for a disabled server entry', async () => {
    expect(await bootFailure('servers: { fs: { disabled: true, comand: node } }')).toContain('server "fs": unknown key "comand"')
  })
})

describe('a refused server', () => {
  it('is named in the error\'s details, so no caller parses the message for it', () => {
    let error: unknown
    try {
      checkConfig({ servers: { 'files-2': { command: ' ' } }, restartDelayMs: 1000, maxRestartDelayMs: 30_000 } as never)
    } catch (thrown) {
      error = thrown
    }
    if (!ToolsMcpError.is(error, 'INVALID_CONFIG')) throw new Error(`expected a ToolsMcpError, got ${String(error)}`)
    expect(error.details).toEqual({ server: 'files-2', reason: 'command is an empty string' })
    expect(error.message).toBe('server "files-2": command is an empty string')
  })
})
