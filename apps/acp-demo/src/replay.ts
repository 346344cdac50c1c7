import type { SessionUpdate } from '@agentclientprotocol/sdk'
import type { SessionEvent } from 'dsh-harness'
import { toSessionUpdate, type KindOf } from './updates.ts'

/**
 * The `session/update`s that show a stored conversation to a client that loads it (`session/load`): user
 * messages, the model's text, each tool call with its final status and output, in log order. Request
 * headers, tool-list changes and compactions are the model's context, not the conversation, and are left out.
 * Tool calls carry the kind `kindOf` knows now (`other` for a tool that is gone).
 */
export function replayUpdates(events: readonly SessionEvent[], kindOf?: KindOf): SessionUpdate[] {
  const updates: (SessionUpdate | undefined)[] = []
  for (const event of events) {
    switch (event.type) {
      case 'user/message':
        updates.push({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: event.data.text } })
        break
      case 'assistant/message': {
        const { turn, step, text } = event.data
        if (text) updates.push(toSessionUpdate({ type: 'text', turn, step, delta: text } as never))
        break
      }
      case 'tool/call': {
        const { turn, step, id, name, arguments: args } = event.data
        updates.push(toSessionUpdate({ type: 'tool-call', turn, step, id, name, arguments: args } as never, undefined, kindOf))
        break
      }
      case 'tool/result': {
        const { turn, step, id, name, output, isError } = event.data
        updates.push(toSessionUpdate({ type: 'tool-result', turn, step, id, name, output, isError } as never))
        break
      }
    }
  }
  return updates.filter((update): update is SessionUpdate => update !== undefined)
}
