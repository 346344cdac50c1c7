import type { ChatMessage, ToolHistorySnapshot, ToolHistoryUpdate, ToolSchema } from 'dsh-core'
import type { GenerateOptions } from 'dsh-llm'
import { sampleTool } from './streams.ts'

/** A hand-built snapshot, as dsh-session's `toolHistory()` would reduce the log. */
export function toolSnapshot(start: number, declarations: ToolSchema[], updates: ToolHistoryUpdate[], headers: Record<number, ToolSchema[]>): ToolHistorySnapshot {
  return {
    sequenceStartSeq: start,
    declarations,
    updates,
    resolve: (name, headerSeq) => headers[headerSeq]?.find((definition) => definition.name === name),
  }
}

const read = sampleTool('read')
const write = sampleTool('write')
const grep: ToolSchema = { name: 'grep', description: 'Searches files.', parameters: { type: 'object', properties: { pattern: { type: 'string' } }, required: ['pattern'] } }
const system = 'You are a test.'
const user1: ChatMessage = { role: 'user', text: 'list the files' }
const assistant1: ChatMessage = { role: 'assistant', text: 'a.txt, b.txt', toolCalls: [] }
const user2: ChatMessage = { role: 'user', text: 'find TODOs' }
const added: ChatMessage = { role: 'developer', source: 'tool-registry', added: ['grep'], removed: [], headerSeq: 5 }
const removed: ChatMessage = { role: 'developer', source: 'tool-registry', added: [], removed: ['grep'], headerSeq: 5 }

/**
 * Requests of one session whose tools change, for projection tests of any adapter: header 1 declares
 * `read`, `write` (and `grep` in the removal story); turn 2 adds (or removes) `grep`, logged as header 5 and
 * developer message 6. Each request builder takes the model to ask.
 */
export const toolChanges = {
  read, write, grep, user1, assistant1, user2,
  beforeAddition: (model: string): GenerateOptions => ({
    model, system, tools: [read, write], messages: [user1],
    toolHistory: toolSnapshot(1, [read, write], [], { 1: [read, write] }),
  }),
  /** After the addition, with `extra` messages appended to the history. */
  afterAddition: (model: string, extra: ChatMessage[] = []): GenerateOptions => ({
    model, system, tools: [read, write, grep], messages: [user1, assistant1, user2, added, ...extra],
    toolHistory: toolSnapshot(1, [read, write], [{ seq: 6, added: ['grep'], removed: [], headerSeq: 5 }], { 1: [read, write], 5: [read, write, grep] }),
  }),
  beforeRemoval: (model: string): GenerateOptions => ({
    model, system, tools: [read, write, grep], messages: [user1],
    toolHistory: toolSnapshot(1, [read, write, grep], [], { 1: [read, write, grep] }),
  }),
  afterRemoval: (model: string): GenerateOptions => ({
    model, system, tools: [read, write], messages: [user1, assistant1, user2, removed],
    toolHistory: toolSnapshot(1, [read, write, grep], [{ seq: 6, added: [], removed: ['grep'], headerSeq: 5 }], { 1: [read, write, grep], 5: [read, write] }),
  }),
}
