import { deepFreeze, type ChatMessage } from 'dsh-core'
import type { SessionEvent } from './events.ts'

/** Incremental projection of the log into the model-facing history. */
export class MessagesFold {
  /** How many log events this fold has consumed. */
  position = 0
  private readonly list: ChatMessage[] = []
  private published: readonly ChatMessage[] = Object.freeze([])
  private dirty = false

  apply(event: SessionEvent): void {
    const message = toMessage(event)
    if (!message) return
    this.list.push(deepFreeze(message))
    this.dirty = true
  }

  /** A frozen array; the same instance until a fed event adds a message. */
  value(): readonly ChatMessage[] {
    if (this.dirty) {
      this.dirty = false
      this.published = deepFreeze(this.list.slice())
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
