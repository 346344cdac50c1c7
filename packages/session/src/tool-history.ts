import { type ToolSchema, type ToolHistorySnapshot, type ToolHistoryUpdate, deepFreeze } from 'dsh-core'
import type { SessionEvent } from './events.ts'

interface Sequence {
  startSeq: number
  declarations: readonly ToolSchema[]
  updates: ToolHistoryUpdate[]
  /** Frozen copy of `updates`, shared by snapshots until the next update. */
  frozenUpdates: readonly ToolHistoryUpdate[] | undefined
  /** Serialized definition of every name this sequence has declared or added, removed ones included. */
  known: Map<string, string>
  /** Tools of each header of this sequence, by header seq. */
  headers: Map<number, readonly ToolSchema[]>
  lastHeaderSeq: number
}

/**
 * Incremental reduction of `request/header`, tool-registry `developer/message` and `sequence/reset`
 * events into the current request sequence. Fed one event at a time, in log order.
 */
export class ToolHistoryFold {
  /** How many log events this fold has consumed. */
  position = 0
  private sequence: Sequence | undefined
  private resetPending = false
  private dirty = false
  private current: ToolHistorySnapshot | undefined

  apply(event: SessionEvent): void {
    if (event.type === 'request/header') this.header(event)
    else if (event.type === 'developer/message') this.update(event)
    else if (event.type === 'sequence/reset') this.resetPending = true
  }

  /** The immutable snapshot; the same object until a fed event changes it. */
  snapshot(): ToolHistorySnapshot | undefined {
    if (this.dirty) {
      this.dirty = false
      this.current = freezeSnapshot(this.sequence!)
    }
    return this.current
  }

  private header(event: SessionEvent<'request/header'>): void {
    const tools = event.data.header.tools
    const serialized = tools.map(tool => JSON.stringify(tool))
    const sequence = this.sequence
    const continues = sequence !== undefined && !this.resetPending
      && tools.every((tool, i) => (sequence.known.get(tool.name) ?? serialized[i]) === serialized[i])
    if (continues) {
      tools.forEach((tool, i) => {
        if (!sequence.known.has(tool.name)) sequence.known.set(tool.name, serialized[i]!)
      })
      sequence.headers.set(event.seq, tools)
      sequence.lastHeaderSeq = event.seq
    } else {
      this.resetPending = false
      this.sequence = {
        startSeq: event.seq,
        declarations: tools,
        updates: [],
        frozenUpdates: undefined,
        known: new Map(tools.map((tool, i) => [tool.name, serialized[i]!])),
        headers: new Map([[event.seq, tools]]),
        lastHeaderSeq: event.seq,
      }
    }
    this.dirty = true
  }

  private update(event: SessionEvent<'developer/message'>): void {
    const sequence = this.sequence
    const { headerSeq, added, removed } = event.data
    // An update through the header that opened the sequence is already in its declarations;
    // one through a header of an older sequence no longer applies.
    if (!sequence || this.resetPending || headerSeq === sequence.startSeq || !sequence.headers.has(headerSeq)) return
    sequence.updates.push(Object.freeze({ seq: event.seq, added, removed, headerSeq }))
    sequence.frozenUpdates = undefined
    this.dirty = true
  }
}

function freezeSnapshot(sequence: Sequence): ToolHistorySnapshot {
  const { headers, lastHeaderSeq } = sequence
  return deepFreeze({
    sequenceStartSeq: sequence.startSeq,
    declarations: sequence.declarations,
    updates: sequence.frozenUpdates ??= deepFreeze(sequence.updates.slice()),
    resolve(name: string, headerSeq: number): ToolSchema | undefined {
      // The sequence keeps growing after this snapshot; later headers are not part of it.
      if (headerSeq > lastHeaderSeq) return undefined
      return headers.get(headerSeq)?.find(tool => tool.name === name)
    },
  })
}
