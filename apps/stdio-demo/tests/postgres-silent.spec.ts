import { createServer, type Server, type Socket } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { run, writeApp } from './setup.ts'

const servers: { server: Server; sockets: Set<Socket> }[] = []
afterEach(async () => {
  for (const { server, sockets } of servers.splice(0)) {
    for (const socket of sockets) socket.destroy()
    await new Promise((resolve) => server.close(resolve))
  }
})

/** A loopback port that accepts TCP connections and never says a word. */
async function silentPort(): Promise<number> {
  const sockets = new Set<Socket>()
  const server = createServer((socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  servers.push({ server, sockets })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return (server.address() as { port: number }).port
}

async function appOn(port: number, store: Record<string, unknown> = {}) {
  const config = JSON.stringify({ url: `postgres://dsh:pw@127.0.0.1:${port}/db`, ...store })
  return writeApp([
    '- { id: app, name: dsh-stdio-demo, config: { sessionStore: external } }',
    `- { id: pg, name: dsh-session-postgres, config: ${config} }`,
    '',
  ].join('\n'))
}

describe('a PostgreSQL address that accepts TCP but never answers', () => {
  it('fails the boot within connectTimeoutMs, in one line naming the store, the address and the timeout', async () => {
    const port = await silentPort()
    const { file } = await appOn(port, { connectTimeoutMs: 500 })
    const started = Date.now()
    const result = await run([file], 'hi\n', { env: { DSH_STARTUP_TIMEOUT_MS: '60000' } })
    expect(Date.now() - started).toBeLessThan(20_000)
    expect(result).toMatchObject({ code: 1, stdout: '' })
    expect(result.stderr).toBe(`${file}: entry "pg" (dsh-session-postgres): failed to start: cannot connect to PostgreSQL at `
      + `postgres://dsh@127.0.0.1:${port}/db: no answer within 500 ms (connectTimeoutMs)\n`)
  })

  it('past the startup timeout, names the entry still starting instead of "no enabled entry runs dsh-stdio-demo"', async () => {
    const port = await silentPort()
    const { file } = await appOn(port, { connectTimeoutMs: 30_000 })
    const result = await run([file], 'hi\n', { env: { DSH_STARTUP_TIMEOUT_MS: '1000' } })
    expect(result).toMatchObject({ code: 1, stdout: '' })
    expect(result.stderr).not.toContain('no enabled entry')
    expect(result.stderr).not.toContain('inactive context')
    // one line: no [warn] saying the same before it
    expect(result.stderr).toBe(`${file}: the startup timeout of 1000 ms passed while entry "pg" (dsh-session-postgres) was still starting, `
      + 'and nothing can be served without the dsh-stdio-demo entry; DSH_STARTUP_TIMEOUT_MS sets the timeout\n')
  })
})

describe('a PostgreSQL address that refuses connections', () => {
  it('fails the boot with the one-liner alone: no raw [error] line of the store before it', async () => {
    const closed = await silentPort()
    await new Promise((resolve) => servers.pop()!.server.close(resolve))
    const { file } = await appOn(closed)
    const result = await run([file], 'hi\n')
    expect(result).toMatchObject({ code: 1, stdout: '' })
    expect(result.stderr).toBe(`${file}: entry "pg" (dsh-session-postgres): failed to start: cannot connect to PostgreSQL at `
      + `postgres://dsh@127.0.0.1:${closed}/db: connection refused (is the server running and listening there?)\n`)
  })
})

describe('an app entry slower than the startup timeout', () => {
  it('a 20 MB persona with a 1 s timeout names the entry still starting, and nothing is created on the disposed app', async () => {
    const { file } = await writeApp(`- { id: app, name: dsh-stdio-demo, config: { persistenceRoot: ./sessions, persona: "${'x'.repeat(20_000_000)}" } }\n`)
    const result = await run([file], 'hi\n', { env: { DSH_STARTUP_TIMEOUT_MS: '1000' } })
    expect(result).toMatchObject({ code: 1, stdout: '' })
    expect(result.stderr).toBe(`${file}: the startup timeout of 1000 ms passed while entry "app" (dsh-stdio-demo) was still starting, `
      + 'and nothing can be served without the dsh-stdio-demo entry; DSH_STARTUP_TIMEOUT_MS sets the timeout\n')
  }, 90_000)
})
