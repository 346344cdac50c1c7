import { FrozenList, SUMMARY_PREFIX, deepFreeze, extendList, type ChatMessage } from 'dsh-core'
import type { SessionEvent } from './events.ts'

/** The model-facing message that replaces the compacted history (dsh-core's `SUMMARY_PREFIX`, then the summary). */
export function summaryMessage(summary: string): ChatMessage {
  return { role: 'user', text: SUMMARY_PREFIX + summary }
}

/** Incremental projection of the log into the model-facing history. */
export class MessagesFold {
  /** How many log events this fold has consumed. */
  position = 0
  private list: ChatMessage[] = []
  /** Seq of the event behind each message of `list`. */
  private seqs: number[] = []
  private published: FrozenList<ChatMessage> = FrozenList.of([])
  /** A compaction replaced part of `list`: the next list published is a new base, not an extension. */
  private rebuilt = false

  apply(event: SessionEvent): void {
    if (event.type === 'context/compaction') return this.compact(event)
    if (event.type === 'user/refused') return this.refuse(event)
    const message = toMessage(event)
    if (!message) return
    this.list.push(deepFreeze(message))
    this.seqs.push(event.seq)
  }

  /** A refused message leaves the history: no request carries it, the ones after it included. */
  private refuse(event: SessionEvent<'user/refused'>): void {
    const index = this.seqs.lastIndexOf(event.data.messageSeq)
    if (index < 0) return
    this.list.splice(index, 1)
    this.seqs.splice(index, 1)
    this.rebuilt = true
  }

  /**
   * The summary takes the place of the history through `throughSeq`. Tool-registry messages of that range
   * stay, ahead of it: the tools they announced are still declared, and routes that announce additions
   * in history need the announcement to keep them loaded.
   */
  private compact(event: SessionEvent<'context/compaction'>): void {
    const { throughSeq, summary } = event.data
    const kept: number[] = []
    const after: number[] = []
    this.seqs.forEach((seq, index) => {
      if (seq > throughSeq) after.push(index)
      else if (this.list[index]!.role === 'developer') kept.push(index)
    })
    this.list = [...kept.map((index) => this.list[index]!), deepFreeze(summaryMessage(summary)), ...after.map((index) => this.list[index]!)]
    this.seqs = [...kept.map((index) => this.seqs[index]!), event.seq, ...after.map((index) => this.seqs[index]!)]
    this.rebuilt = true
  }

  /**
   * The history as a `FrozenList`; the same instance until a fed event changes the history. A list that
   * only grew extends the last one published on their shared backing array (`extendList`), so publishing
   * it, freezing it and every reader downstream cost only the new messages. After a compaction the list
   * is published as a fresh base: it is not an extension of the previous one, and readers derive their
   * results from it in full once.
   */
  value(): FrozenList<ChatMessage> {
    if (this.rebuilt) {
      this.rebuilt = false
      this.published = FrozenList.of(this.list)
    } else if (this.list.length > this.published.length) {
      this.published = extendList(this.published, this.list.slice(this.published.length))
    }
    return this.published
  }
}

function toMessage(event: SessionEvent): ChatMessage | undefined {
  switch (event.type) {
    case 'user/message': {
      const { text } = event.data
      return { role: 'user', text }
    }
    case 'context/snapshot': {
      const { text } = event.data
      return { role: 'user', text, source: 'runtime-context' }
    }
    case 'assistant/message': {
      const { text, toolCalls } = event.data
      return { role: 'assistant', text, toolCalls }
    }
    case 'tool/result': {
      const { id, name, output, isError } = event.data
      return { role: 'tool', id, name, output, isError }
    }
    case 'developer/message': {
      const { source, added, removed, headerSeq } = event.data
      return { role: 'developer', source, added, removed, headerSeq }
    }
  }
}
