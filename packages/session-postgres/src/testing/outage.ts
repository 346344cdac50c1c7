import { type Server, type Socket, createServer, connect } from 'node:net'

/** A loopback TCP relay in front of a PostgreSQL server that a test can take down and bring back. */
export interface Outage {
  /** The database URL with the relay's port in place of the server's. */
  url: string
  /** Drops every relayed connection and stops listening: new connections are refused, as by a stopped server. */
  cut(): Promise<void>
  /** Listens again on the same port. */
  restore(): Promise<void>
  close(): Promise<void>
}

/** Starts a relay to the server of `url` on a free loopback port. */
export async function startOutage(url: string): Promise<Outage> {
  const target = new URL(url)
  const sockets = new Set<Socket>()
  let server: Server | undefined
  let port = 0
  const listen = () => new Promise<void>((resolve, reject) => {
    const relay = createServer((client) => {
      const upstream = connect(Number(target.port || 5432), target.hostname)
      for (const socket of [client, upstream]) {
        sockets.add(socket)
        socket.on('close', () => sockets.delete(socket))
        socket.on('error', () => {})
      }
      client.pipe(upstream).pipe(client)
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
  return { url: relayed.href, cut: stop, restore: listen, close: stop }
}
