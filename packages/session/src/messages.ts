import { deepFreeze, extendList } from 'dsh-llm'
import type { ChatMessage } from 'dsh-llm'
import type { SessionEvent } from './events.ts'

/** Incremental projection of the log into the model-facing history. */
export class MessagesFold {
  /** How many log events this fold has consumed. */
  position = 0
  /** Messages not yet published. */
  private pending: ChatMessage[] = []
  private published: readonly ChatMessage[] = deepFreeze([])

  apply(event: SessionEvent): void {
    const message = toMessage(event)
    if (message) this.pending.push(message)
  }

  /**
   * A deep-frozen array; the same instance until a fed event adds a message. A new one extends the last
   * one published (`extendList`), so freezing it and every reader downstream walk only the new messages.
   */
  value(): readonly ChatMessage[] {
    if (this.pending.length) {
      this.published = extendList(this.published, this.pending)
      this.pending = []
    }
    return this.published
  }
}

function toMessage(event: SessionEvent): ChatMessage | undefined {
  switch (event.type) {
    case 'user/message': {
      const { text } = (event as SessionEvent<'user/message'>).data
      return { role: 'user', text }
    }
    case 'assistant/message': {
      const { text, toolCalls } = (event as SessionEvent<'assistant/message'>).data
      return { role: 'assistant', text, toolCalls }
    }
    case 'tool/result': {
      const { id, name, output, isError } = (event as SessionEvent<'tool/result'>).data
      return { role: 'tool', id, name, output, isError }
    }
    case 'developer/message': {
      const { source, added, removed, headerSeq } = (event as SessionEvent<'developer/message'>).data
      return { role: 'developer', source, added, removed, headerSeq }
    }
  }
}
