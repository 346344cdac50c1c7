import { type Server, type Socket, createServer, connect } from 'node:net'

/** A loopback TCP relay in front of a PostgreSQL server that a test can take down and bring back. */
export interface Outage {
  /** The database URL with the relay's port in place of the server's. */
  url: string
  /** Drops every relayed connection and stops listening: new connections are refused, as by a stopped server. */
  cut(): Promise<void>
  /** Listens again on the same port. */
  restore(): Promise<void>
  /**
   * Holds every byte sent to the server for `ms` before relaying it, in order (0: at once, the default):
   * a slow network, so a statement commits that much after it was sent.
   */
  delay(ms: number): void
  close(): Promise<void>
}

/** Starts a relay to the server of `url` on a free loopback port. */
export async function startOutage(url: string): Promise<Outage> {
  const target = new URL(url)
  const sockets = new Set<Socket>()
  let server: Server | undefined
  let port = 0
  let delayMs = 0
  const listen = () => new Promise<void>((resolve, reject) => {
    const relay = createServer((client) => {
      const upstream = connect(Number(target.port || 5432), target.hostname)
      for (const socket of [client, upstream]) {
        sockets.add(socket)
        socket.on('close', () => sockets.delete(socket))
        socket.on('error', () => {})
      }
      // bytes to the server wait `delayMs`, never overtaking earlier ones; answers come back at once
      const held: { at: number; chunk: Buffer }[] = []
      let timer: NodeJS.Timeout | undefined
      const release = () => {
        timer = undefined
        while (held.length && held[0]!.at <= Date.now()) upstream.write(held.shift()!.chunk)
        if (held.length) timer = setTimeout(release, held[0]!.at - Date.now())
      }
      client.on('data', (chunk: Buffer) => {
        if (delayMs === 0 && !held.length) return void upstream.write(chunk)
        held.push({ at: Date.now() + delayMs, chunk })
        timer ??= setTimeout(release, held[0]!.at - Date.now())
      })
      client.on('close', () => clearTimeout(timer))
      upstream.pipe(client)
      client.on('close', () => upstream.destroy())
      upstream.on('close', () => client.destroy())
    })
    relay.once('error', reject)
    relay.listen(port, '127.0.0.1', () => {
      port = (relay.address() as { port: number }).port
      server = relay
      resolve()
    })
  })
  const stop = () => new Promise<void>((resolve) => {
    const current = server
    server = undefined
    for (const socket of sockets) socket.destroy()
    if (!current) return resolve()
    current.close(() => resolve())
  })
  await listen()
  const relayed = new URL(url)
  relayed.hostname = '127.0.0.1'
  relayed.port = String(port)
  const delay = (ms: number) => {
    if (!Number.isInteger(ms) || ms < 0) throw new Error(`delay: ms must be a whole number of milliseconds, 0 or more, got ${ms}`)
    delayMs = ms
  }
  return { url: relayed.href, cut: stop, restore: listen, close: stop, delay }
}
