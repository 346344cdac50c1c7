import { createServer, type Server, type Socket } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { appFolder, spawnApp } from './harness.ts'

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

describe('the startup timeout passing before the app entry is up', () => {
  it('is one line naming the entry still starting, exit 1: no warning saying the same, no "no entry runs the app plugin"', async () => {
    const port = await silentPort()
    const { file } = await appFolder([
      '- { id: app, name: dsh-acp-demo, config: { sessionStore: external } }',
      `- { id: pg, name: dsh-session-postgres, config: { url: "postgres://dsh:pw@127.0.0.1:${port}/db", connectTimeoutMs: 30000 } }`,
    ].join('\n') + '\n')
    const app = spawnApp([file], { env: { DSH_STARTUP_TIMEOUT_MS: '1000', DSH_LOG_LEVEL: '' } })
    expect(await app.exited).toBe(1)
    expect(app.stderr()).toBe(`${file}: the startup timeout of 1000 ms passed while entry "pg" (dsh-session-postgres) was still starting, `
      + 'and nothing can be served without the dsh-acp-demo entry; DSH_STARTUP_TIMEOUT_MS sets the timeout\n')
    expect(app.stdout()).toBe('')
  })
})
