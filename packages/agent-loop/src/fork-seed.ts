import { Session, type SessionEvent } from 'dsh-session'

/** The parent's event types a fork copies: the ones its requests are folded from (no extension types, no other fork's links). */
const COPIED = new Set([
  'turn/start', 'step/start', 'user/message', 'user/refused', 'request/header', 'model/switch', 'developer/message',
  'assistant/message', 'tool/call', 'tool/result', 'step/end', 'turn/end', 'sequence/reset', 'context/compaction',
  'context/snapshot', 'permission/decision',
])

/** The data fields that name another event by its seq; a copy shifts them with the events. */
const SEQ_FIELDS = ['headerSeq', 'throughSeq', 'messageSeq'] as const

/**
 * The parent's events behind the request as it stands: the whole log while no turn runs; inside a turn,
 * the events before its last `assistant/message`, which are what its last dispatched request was folded from
 * (that answer asked for the fork and has no result yet).
 */
export function eventsAsItStands(parent: Session, running: boolean): readonly SessionEvent[] {
  const events = parent.events()
  if (!running) return events
  const cut = events.findLastIndex((event) => event.type === 'assistant/message')
  return cut < 0 ? [] : events.slice(0, cut)
}

/**
 * The copy of `events` a child's log holds after its `fork/parent`, built in memory first (so its length is
 * known before `fork/parent` says it): the parent's events behind its requests, seq references moved to the
 * copies' seqs, and a turn the copy ends inside closed (`step/end`, `turn/end` `done`: the copy ends there, the
 * parent's turn goes on in the parent's log).
 */
export function historyCopy(events: readonly SessionEvent[]): Session {
  const copy = new Session('fork-copy')
  const moved = new Map<number, number>()
  for (const event of events) {
    if (!COPIED.has(event.type)) continue
    moved.set(event.seq, copy.append(event.type, shifted(event.data, (seq) => moved.get(seq) ?? seq) as never).seq)
  }
  const open = copy.turns().open
  if (open) {
    if (open.step) copy.append('step/end', { turn: open.turn, step: open.step })
    copy.append('turn/end', { turn: open.turn, reason: 'done' })
  }
  return copy
}

/** Appends `copy` to `child`, every seq reference moved by the events `child` held before it. */
export function appendCopy(child: Session, copy: Session): void {
  const offset = child.lastSeq
  for (const event of copy.events()) child.append(event.type, shifted(event.data, (seq) => seq + offset) as never)
}

function shifted(data: object, move: (seq: number) => number): Record<string, unknown> {
  const out: Record<string, unknown> = { ...data }
  for (const field of SEQ_FIELDS) {
    if (typeof out[field] === 'number') out[field] = move(out[field] as number)
  }
  return out
}
