import { createHash, randomUUID } from 'node:crypto'
import pg from 'pg'
import type { FleetProcess, ReleaseAnswer, ReleaseHandler, ReleaseRequest } from './fleet-types.ts'
import { SELF } from './holders.ts'
import type { WriterPlace } from './writer.ts'

/** Extra time a requester gives the holder's answer beyond the holder's own wait, for the round trips. */
export const ANSWER_MARGIN_MS = 2000

type Message =
  | { kind: 'ask'; request: string; sessionId: string; to: FleetProcess; from: FleetProcess; waitMs: number }
  | { kind: 'answer'; request: string; answer: ReleaseAnswer }

/** The NOTIFY channel of a schema's fleet: one per schema, every process of the schema listens on it. */
export const releaseChannel = (schema: string): string => `dsh_release_${createHash('sha256').update(schema).digest('hex').slice(0, 16)}`

/**
 * Release requests between the processes of one schema, over PostgreSQL's LISTEN/NOTIFY on a connection of
 * its own: asks go to the holder named in them, answers back to whoever waits for their request id.
 */
export class ReleaseRelay {
  private listening: Promise<pg.Client> | undefined
  private readonly handlers = new Set<ReleaseHandler>()
  private readonly waiting = new Map<string, (answer: ReleaseAnswer) => void>()
  private readonly channel: string
  private stopped = false

  constructor(private readonly place: WriterPlace, private readonly holds: (id: string) => boolean, private readonly log: (text: string) => void) {
    this.channel = releaseChannel(place.schema)
  }

  onRequest(handler: ReleaseHandler): () => void {
    this.handlers.add(handler)
    return () => this.handlers.delete(handler)
  }

  /** Starts listening, once; a listener whose connection died is replaced at the next call. */
  listen(): Promise<pg.Client> {
    if (this.stopped) return Promise.reject(new Error('the session store is disposed'))
    this.listening ??= this.connect()
    this.listening.catch(() => { this.listening = undefined })
    return this.listening
  }

  /** Sends an ask to `to` and waits for its answer, at most `waitMs` + ANSWER_MARGIN_MS; undefined on silence. */
  async ask(sessionId: string, to: FleetProcess, waitMs: number): Promise<ReleaseAnswer | undefined> {
    const client = await this.listen()
    const request = randomUUID()
    const answered = new Promise<ReleaseAnswer | undefined>((resolve) => {
      const timer = setTimeout(() => { this.waiting.delete(request); resolve(undefined) }, waitMs + ANSWER_MARGIN_MS)
      this.waiting.set(request, (answer) => { clearTimeout(timer); this.waiting.delete(request); resolve(answer) })
    })
    await this.send(client, { kind: 'ask', request, sessionId, to, from: SELF, waitMs })
    return answered
  }

  async stop(): Promise<void> {
    this.stopped = true
    for (const resolve of this.waiting.values()) resolve({ released: false, reason: 'the asking process is shutting down' })
    const listening = this.listening
    this.listening = undefined
    if (listening) await listening.then((client) => client.end(), () => {}).catch(() => {})
  }

  private async connect(): Promise<pg.Client> {
    const client = new pg.Client({
      connectionString: this.place.target.url,
      application_name: this.place.applicationName,
      connectionTimeoutMillis: this.place.connectTimeoutMs,
    })
    const drop = () => { if (this.listening) this.listening = undefined }
    client.on('error', (error) => { this.log(`release listener lost: ${error.message}`); drop() })
    client.on('end', drop)
    client.on('notification', (message) => {
      if (message.channel === this.channel && message.payload) this.receive(client, message.payload)
    })
    try {
      await client.connect()
      await client.query(`LISTEN ${this.channel}`)
    } catch (error) {
      await client.end().catch(() => {})
      throw error
    }
    return client
  }

  private receive(client: pg.Client, payload: string): void {
    let message: Message
    try {
      message = JSON.parse(payload) as Message
    } catch {
      return
    }
    if (message.kind === 'answer') {
      this.waiting.get(message.request)?.(message.answer)
    } else if (message.kind === 'ask' && message.to.host === SELF.host && message.to.pid === SELF.pid && this.holds(message.sessionId)) {
      // another store of this process may hold it: only the holding one answers
      void this.decide({ sessionId: message.sessionId, from: message.from, waitMs: message.waitMs })
        .then((answer) => this.send(client, { kind: 'answer', request: message.request, answer }))
        .catch((error) => this.log(`cannot answer a release request for session "${message.sessionId}": ${(error as Error).message}`))
    }
  }

  private async decide(request: ReleaseRequest): Promise<ReleaseAnswer> {
    for (const handler of this.handlers) {
      const answer = handler(request)
      if (answer) return answer
    }
    return { released: false, reason: 'no client connection of this process serves the session, so none can hand it over' }
  }

  private async send(client: pg.Client, message: Message): Promise<void> {
    await client.query('SELECT pg_notify($1, $2)', [this.channel, JSON.stringify(message)])
  }
}
