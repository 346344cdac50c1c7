import type { ChatMessage, ReadonlyList } from 'dsh-core'
import type { CacheMarkPlan, MarkableMessage, MarkableRequest, RequestMark } from '../cache-marks.ts'
import { originOf, type ProjectedMessage } from '../projection.ts'

/** Where a wire block comes from: the projected message, and the block's index among that message's blocks. */
export interface TracedBlock {
  message: ProjectedMessage
  block: number
}

/** A history message of a wire body, for planning, that can say where each of its blocks comes from. */
export interface WireMarkableMessage extends MarkableMessage {
  source(block: number): TracedBlock | undefined
}

/** A wire body as marker planning reads it (`HttpAdapterDefinition.markable`), its tools named. */
export interface WireMarkable extends MarkableRequest {
  tools: readonly { name: string; deferred: boolean }[]
  messages: readonly WireMarkableMessage[]
}

const traces = new WeakMap<object, TracedBlock>()

/** Remembers that the wire object `wire` (a content block, or a message sent as one string) is block `block` of `message`; returns `wire`. */
export function traceBlock<T extends object>(wire: T, message: ProjectedMessage, block = 0): T {
  traces.set(wire, { message, block })
  return wire
}

/** Where the wire object `wire` comes from, as `traceBlock` remembered it. */
export function tracedBlock(wire: object): TracedBlock | undefined {
  return traces.get(wire)
}

/**
 * The marks of `plan` in the request's own terms: the marked tool by name, the system prompt, and each marked
 * history block as an index into `history` (`options.messages`) and a block within that message.
 */
export function requestMarks(shape: WireMarkable, plan: CacheMarkPlan, history: ReadonlyList<ChatMessage>): RequestMark[] {
  const marks: RequestMark[] = []
  if (plan.tool !== undefined) marks.push({ at: 'tool', name: shape.tools[plan.tool]!.name })
  if (plan.system) marks.push({ at: 'system' })
  for (const { message, block } of plan.blocks) {
    const traced = shape.messages[message]!.source(block)
    const origin = traced && originOf(traced.message)
    const index = origin ? lastIndexOf(history, origin) : -1
    if (index >= 0) marks.push({ at: 'message', index, block: traced!.block })
  }
  return marks
}

// Marked blocks sit near the end of the history: search from there.
function lastIndexOf(history: ReadonlyList<ChatMessage>, message: ChatMessage): number {
  for (let index = history.length - 1; index >= 0; index--) if (history.at(index) === message) return index
  return -1
}
