import { describeValue, type ChatMessage, type FrozenList, type ToolHistorySnapshot, frozenJsonCopy } from 'dsh-core'
import { SessionError } from './errors.ts'
import { freezeParsed } from './freeze-parsed.ts'
import type { EventData, SessionEvent } from './events.ts'
import { MessagesFold } from './messages.ts'
import { ToolHistoryFold } from './tool-history.ts'
import { TurnFold, type TurnsView } from './turns.ts'
import { validateEvent, type EventPayload } from './validate.ts'

/** Where a session's serialized lines go, in append order. */
export interface EventSink {
  /** Queues one line (with its trailing newline); throws if the sink has failed. */
  write(line: string): void
  /** Resolves once every line written so far is durable. */
  flushed(): Promise<void>
  /**
   * Resolves once every line written so far survives the end of this process (a crash, `kill -9`): handed
   * to the operating system, or committed. Sinks without it count as such once `flushed()` resolves.
   */
  written?(): Promise<void>
  /** How many lines reached the storage (written, if not yet durable); absent for sinks that do not count. */
  readonly writtenLines?: number
}

export interface SessionOptions {
  /** True when the session was loaded from an existing log. */
  resumed?: boolean
  sink?: EventSink
}

/** Restores an already-sequenced envelope: for store implementations (loaders) only, not for callers. */
export const restoreEvent = Symbol('dsh-session.restoreEvent')

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/
const ENVELOPE_KEYS = ['seq', 'time', 'type', 'data']

interface Fold {
  position: number
  apply(event: SessionEvent): void
}

class HeaderFold implements Fold {
  position = 0
  last: SessionEvent<'request/header'> | undefined
  apply(event: SessionEvent): void {
    if (event.type === 'request/header') this.last = event
  }
}

/** An append-only event log with cached, incremental folds. */
export class Session {
  /** True when this session was loaded from a persisted log (the loop then logs a `resume` header). */
  readonly resumed: boolean
  private readonly log: SessionEvent[] = []
  private readonly sink: EventSink | undefined
  private readonly header = new HeaderFold()
  private readonly history = new MessagesFold()
  private readonly tools = new ToolHistoryFold()
  private readonly turnFold = new TurnFold()
  private published: readonly SessionEvent[] = Object.freeze([])

  constructor(readonly id: string, options: SessionOptions = {}) {
    this.resumed = options.resumed ?? false
    this.sink = options.sink
  }

  /**
   * True when the storage holds something of this session: it was loaded, or a line of it reached its sink.
   * A session whose first write failed has none (a store may start it afresh).
   */
  get stored(): boolean {
    return this.resumed || (this.sink?.writtenLines ?? 0) > 0
  }

  /** Seq of the last event, 0 when empty. */
  get lastSeq(): number {
    return this.log.length
  }

  /**
   * Validates, stamps (seq, time), deep-freezes and logs one event, and queues it for persistence.
   * Returns the logged event synchronously; `flushed()` tells when it is on disk.
   */
  append<K extends string>(type: K, data: EventData<K>): SessionEvent<K> {
    const payload = validateEvent(type, data)
    this.checkReferences(payload)
    const envelope = { seq: this.log.length + 1, time: new Date().toISOString(), ...payload }
    this.sink?.write(JSON.stringify(envelope) + '\n')
    // Memory holds exactly what a reload will read: validation proved the data JSON-safe, so a frozen
    // JSON-faithful copy equals the parsed line without the round trip through text.
    const event: SessionEvent = frozenJsonCopy(envelope)
    this.log.push(event)
    // the event of type K, which TypeScript cannot tie to the union member it is
    return event as SessionEvent as SessionEvent<K>
  }

  /** Resolves once every event appended so far is durable (immediately for in-memory sessions). */
  flushed(): Promise<void> {
    return this.sink ? this.sink.flushed() : Promise.resolve()
  }

  /**
   * Resolves once every event appended so far survives the end of this process (a crash, `kill -9`):
   * written to the operating system by the JSONL store, committed by PostgreSQL. `flushed()` waits for the
   * store's `durability` on top (a power cut). Front doors wait for this before a client sees anything
   * these events imply. Immediately for in-memory sessions; rejects with the store's failure.
   */
  written(): Promise<void> {
    if (!this.sink) return Promise.resolve()
    return this.sink.written ? this.sink.written() : this.sink.flushed()
  }

  /** Every event in log order, as a frozen array (the same instance until the next append). */
  events(): readonly SessionEvent[] {
    if (this.published.length !== this.log.length) this.published = Object.freeze(this.log.slice())
    return this.published
  }

  /**
   * The event with seq `seq` (1..lastSeq), undefined outside that range. Reading the log from its end
   * this way costs what is read, where `events()` copies the whole list after each append.
   */
  event(seq: number): SessionEvent | undefined {
    return Number.isInteger(seq) && seq >= 1 ? this.log[seq - 1] : undefined
  }

  /** The last logged `request/header` event, if any. */
  requestHeader(): SessionEvent<'request/header'> | undefined {
    this.advance(this.header)
    return this.header.last
  }

  /**
   * The model-facing history (user, assistant, tool and tool-registry developer messages) as a
   * `FrozenList`: the same instance until the history changes, and a step's new list shares the previous
   * one's backing array, so reading it after an append costs the appended messages only.
   */
  messages(): FrozenList<ChatMessage> {
    this.advance(this.history)
    return this.history.value()
  }

  /** The tool-history reduction of the current request sequence; undefined before the first header. */
  toolHistory(): ToolHistorySnapshot | undefined {
    this.advance(this.tools)
    return this.tools.snapshot()
  }

  /** How many turns were started, and the turn the log ends inside (no `turn/end` yet), if any. */
  turns(): TurnsView {
    this.advance(this.turnFold)
    return this.turnFold.value()
  }

  /**
   * Closes the turn the log ends inside (the process stopped mid-turn) so the log is balanced before
   * anything new is logged: an error result for each call still waiting for one (providers refuse a tool
   * call without its result), the open step's end, and the turn's end with reason `error` and `message`.
   * Returns false when no turn is open.
   */
  closeOpenTurn(message: string): boolean {
    const open = this.turns().open
    if (!open) return false
    const { turn } = open
    for (const { id, step, name } of open.pending) {
      this.append('tool/result', { turn, step, id, name, output: `tool ${JSON.stringify(name)} did not return: ${message}`, isError: true })
    }
    if (open.step) this.append('step/end', { turn, step: open.step })
    this.append('turn/end', { turn, reason: 'error', error: { message } })
    return true
  }

  /** Logs an envelope read from a persisted log, checking its seq and stamp; loaders only. */
  [restoreEvent](raw: unknown): SessionEvent {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      throw new SessionError('INVALID_EVENT', `an event must be a JSON object {seq, time, type, data}, got ${describeValue(raw)}`)
    }
    const envelope = raw as Record<string, unknown>
    const extra = Object.keys(envelope).find(key => !ENVELOPE_KEYS.includes(key))
    if (extra !== undefined) {
      throw new SessionError('INVALID_EVENT', `unknown envelope field "${extra}"; valid fields: ${ENVELOPE_KEYS.join(', ')}`)
    }
    if (envelope.seq !== this.log.length + 1) {
      throw new SessionError('BAD_SEQ', `seq must be ${this.log.length + 1} (seqs are contiguous from 1), got ${describeValue(envelope.seq)}`)
    }
    if (typeof envelope.time !== 'string' || !ISO_TIME.test(envelope.time) || Number.isNaN(Date.parse(envelope.time))) {
      throw new SessionError('INVALID_EVENT', `field "time" must be an ISO-8601 UTC timestamp, got ${describeValue(envelope.time)}`)
    }
    this.checkReferences(validateEvent(envelope.type, envelope.data))
    const event = freezeParsed(envelope) as unknown as SessionEvent
    this.log.push(event)
    return event
  }

  private checkReferences(event: EventPayload): void {
    if (event.type === 'context/compaction') return this.checkCut(event.data)
    if (event.type === 'user/refused') return this.checkRefused(event.data)
    if (event.type !== 'developer/message') return
    const { headerSeq } = event.data
    if (this.log[headerSeq - 1]?.type !== 'request/header') {
      throw new SessionError('INVALID_EVENT', `developer/message: field "headerSeq" must be the seq of a logged request/header, `
        + `got ${headerSeq} (${headerSeq > this.log.length ? 'not logged yet' : `a ${this.log[headerSeq - 1]!.type} event`})`)
    }
  }

  /** A refusal names a logged message of its own turn. */
  private checkRefused({ turn, messageSeq }: EventData<'user/refused'>): void {
    const message = this.log[messageSeq - 1]
    if (message?.type !== 'user/message' || message.data.turn !== turn) {
      throw new SessionError('INVALID_EVENT', `user/refused: field "messageSeq" must be the seq of a logged user/message of turn ${turn}, `
        + `got ${messageSeq} (${!message ? 'not logged yet' : `a ${message.type} event${message.type === 'user/message' ? ' of another turn' : ''}`})`)
    }
  }

  /** A compaction replaces logged history only, and never reaches back past an earlier compaction. */
  private checkCut({ throughSeq }: EventData<'context/compaction'>): void {
    const earlier = this.log.findLast((event) => event.type === 'context/compaction')
    if (throughSeq > this.log.length || (earlier && throughSeq <= earlier.seq)) {
      throw new SessionError('INVALID_EVENT', `context/compaction: field "throughSeq" must be a logged seq after the last compaction `
        + `(${earlier ? earlier.seq + 1 : 1}..${this.log.length}), got ${throughSeq}`)
    }
  }

  private advance(fold: Fold): void {
    const log = this.log
    while (fold.position < log.length) fold.apply(log[fold.position++]!)
  }
}

