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
    const data = event.data as Record<string, any>
    switch (event.type) {
      case 'user/message':
        updates.push({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: data.text } })
        break
      case 'assistant/message':
        if (data.text) updates.push(toSessionUpdate({ type: 'text', turn: data.turn, step: data.step, delta: data.text } as never))
        break
      case 'tool/call':
        updates.push(toSessionUpdate({ type: 'tool-call', turn: data.turn, step: data.step, id: data.id, name: data.name, arguments: data.arguments } as never, undefined, kindOf))
        break
      case 'tool/result':
        updates.push(toSessionUpdate({ type: 'tool-result', turn: data.turn, step: data.step, id: data.id, name: data.name, output: data.output, isError: data.isError } as never))
        break
    }
  }
  return updates.filter((update): update is SessionUpdate => update !== undefined)
}
