import type { ChatMessage, ReadonlyList, ToolSchema } from 'dsh-core'
import type LlmRuntime from 'dsh-llm'
import type { GenerateOptions } from 'dsh-llm'

/** One cache marker of a request, as `ctx.llm.cacheMarks()` names it. */
export type RequestMark = ReturnType<LlmRuntime['cacheMarks']>[number]

/**
 * Where a cache marker sits in a request, as a route's planner places it: after the last tool, at the end
 * of the system prompt, on the last block of the history message at that index (negative: from the end),
 * on the history's content block at that index (`{ block }`, 0-based, negative from the end), or on the
 * highest point of a grid of `{ grid }` history blocks below the newest block (the last block of every
 * grid-th run: blocks grid − 1, 2·grid − 1, …) — or where a route's adapter says its request carries one
 * (a `RequestMark`: on a declared tool by name, on the system prompt, on a block of a history message).
 */
export type CacheMark = 'tools' | 'system' | number | { block: number } | { grid: number } | RequestMark

/**
 * The cacheable front of one request as a sequence of blocks in the providers' prefix order: one per tool
 * declaration, one for the system prompt, then the history's content blocks (a user or tool message is one
 * block, an assistant message one per text and tool call). Sizes are characters of the blocks' JSON; the
 * prediction scales them to tokens with the provider's own count of the request.
 */
export interface PrefixLayout {
  model: string
  /** Header flags that change the declarations on the wire (deferred names, tool-update mode). */
  flags: string
  toolHashes: readonly string[]
  /** Characters after each tool declaration. */
  toolEnds: readonly number[]
  system: string
  /** Blocks and characters up to the end of the system prompt. */
  systemBlocks: number
  systemEnd: number
  messages: ReadonlyList<ChatMessage>
  messageCount: number
  /** Per history message: blocks and characters from the start of the request to its end (append-only, shared). */
  blockEnds: number[]
  charEnds: number[]
  /** Blocks before each cache marker of the request, ascending. */
  marks: readonly number[]
}

/** A request's common prefix with an earlier one, in blocks and characters. */
export interface CommonPrefix {
  blocks: number
  chars: number
  /** The whole earlier request is the front of the later one. */
  whole: boolean
}

const messageChars = new WeakMap<object, number>()

const sizeOf = (value: object) => {
  let size = messageChars.get(value)
  if (size === undefined) {
    size = JSON.stringify(value).length
    // History messages and logged tool snapshots are frozen; only those are safe to remember.
    if (Object.isFrozen(value)) messageChars.set(value, size)
  }
  return size
}

// The loop sends one frozen tool list step after step: its declaration ends are measured once.
const toolEndsOf = new WeakMap<readonly ToolSchema[], number[]>()

const blocksOf = (message: ChatMessage) => message.role === 'assistant' ? Math.max(1, (message.text ? 1 : 0) + message.toolCalls.length) : 1

/**
 * The layout of `options`. Given the layout of the same agent's previous request and a history that extends
 * it (the loop's shared `FrozenList`), only the new messages are measured, so a step costs what it adds.
 */
export function layoutOf(
  options: Pick<GenerateOptions, 'model' | 'system' | 'tools' | 'messages' | 'deferredTools'>,
  toolHashes: readonly string[],
  flags: string,
  marks: readonly CacheMark[] = [],
  previous?: PrefixLayout,
): PrefixLayout {
  let toolEnds = toolEndsOf.get(options.tools)
  if (!toolEnds) {
    let end = 0
    toolEnds = options.tools.map((tool) => end += sizeOf(tool))
    if (Object.isFrozen(options.tools)) toolEndsOf.set(options.tools, toolEnds)
  }
  let chars = toolEnds.at(-1) ?? 0
  const systemBlocks = options.tools.length + (options.system ? 1 : 0)
  const systemEnd = chars + options.system.length
  const { messages } = options
  const shared = previous && previous.systemEnd === systemEnd && previous.systemBlocks === systemBlocks && extends_(previous, messages)
  const blockEnds = shared ? reuse(previous.blockEnds, previous.messageCount) : []
  const charEnds = shared ? reuse(previous.charEnds, previous.messageCount) : []
  let blocks = blockEnds.at(-1) ?? systemBlocks
  chars = charEnds.at(-1) ?? systemEnd
  for (let index = blockEnds.length; index < messages.length; index++) {
    const message = messages.at(index)!
    blockEnds.push(blocks += blocksOf(message))
    charEnds.push(chars += sizeOf(message))
  }
  const history = blocks - systemBlocks
  const at = (mark: CacheMark) => {
    if (typeof mark === 'object' && 'at' in mark) return requested(mark)
    if (mark === 'tools') return options.tools.length
    if (mark === 'system') return systemBlocks
    if (typeof mark === 'number') return blockEnds[mark < 0 ? messages.length + mark : mark] ?? 0
    const index = 'grid' in mark ? Math.floor((history - 1) / mark.grid) * mark.grid - 1
      : mark.block < 0 ? history + mark.block : mark.block
    return index >= 0 && index < history - ('grid' in mark ? 1 : 0) ? systemBlocks + index + 1 : 0
  }
  // a tool the layout does not list (one the route still declares) counts as the end of the tools
  const requested = (mark: RequestMark) => {
    if (mark.at === 'system') return systemBlocks
    if (mark.at === 'tool') return options.tools.findIndex((tool) => tool.name === mark.name) + 1 || options.tools.length
    const end = blockEnds[mark.index]
    if (end === undefined) return 0
    return Math.min(end, (mark.index ? blockEnds[mark.index - 1]! : systemBlocks) + mark.block + 1)
  }
  return {
    model: options.model, flags, toolHashes, toolEnds, system: options.system, systemBlocks, systemEnd,
    messages, messageCount: messages.length, blockEnds, charEnds,
    marks: [...new Set(marks.map(at))].filter((count) => count > 0).sort((a, b) => a - b),
  }
}

/** Blocks and characters of the whole request. */
export function totalOf(layout: PrefixLayout): { blocks: number; chars: number } {
  if (!layout.messageCount) return { blocks: layout.systemBlocks, chars: layout.systemEnd }
  return { blocks: layout.blockEnds[layout.messageCount - 1]!, chars: layout.charEnds[layout.messageCount - 1]! }
}

/** Characters up to the end of the first `blocks` blocks of `layout`. */
export function charsAt(layout: PrefixLayout, blocks: number): number {
  if (blocks <= layout.toolHashes.length) return blocks === 0 ? 0 : layout.toolEnds[blocks - 1]!
  if (blocks <= layout.systemBlocks) return layout.systemEnd
  let index = 0
  while (index < layout.messageCount - 1 && layout.blockEnds[index]! < blocks) index++
  return layout.charEnds[index]!
}

/**
 * The front `current` shares with `previous`, in whole blocks — and, where `partial`, also the characters of
 * the first differing system prompt up to its first difference (automatic caches serve such a prefix).
 */
export function commonPrefix(previous: PrefixLayout, current: PrefixLayout, partial: boolean): CommonPrefix {
  const none = { blocks: 0, chars: 0, whole: false }
  if (previous.model !== current.model || previous.flags !== current.flags) return none
  const tools = previous.toolHashes
  let index = 0
  if (tools === current.toolHashes) index = tools.length
  else while (index < tools.length && tools[index] === current.toolHashes[index]) index++
  const toolsEnd = { blocks: index, chars: index ? previous.toolEnds[index - 1]! : 0, whole: false }
  if (index < tools.length || current.toolHashes.length !== tools.length) return toolsEnd
  if (previous.system !== current.system) {
    return partial ? { ...toolsEnd, chars: toolsEnd.chars + sharedLength(previous.system, current.system) } : toolsEnd
  }
  let count = 0
  if (extends_(previous, current.messages)) count = previous.messageCount
  else while (count < previous.messageCount && sameMessage(previous.messages.at(count)!, current.messages.at(count))) count++
  const whole = count === previous.messageCount
  if (!count) return { blocks: previous.systemBlocks, chars: previous.systemEnd, whole }
  return { blocks: previous.blockEnds[count - 1]!, chars: previous.charEnds[count - 1]!, whole }
}

// The loop extends one FrozenList step after step: then the earlier request's last message is the same object.
function extends_(previous: PrefixLayout, messages: ReadonlyList<ChatMessage>): boolean {
  const count = previous.messageCount
  if (messages.length < count) return false
  if (messages === previous.messages || count === 0) return true
  return messages.at(count - 1) === previous.messages.at(count - 1) && messages.at(0) === previous.messages.at(0)
}

function sameMessage(a: ChatMessage, b: ChatMessage | undefined): boolean {
  return a === b || (b !== undefined && JSON.stringify(a) === JSON.stringify(b))
}

// An append-only array may be extended by one successor only; another successor copies the shared part.
function reuse(array: number[], count: number): number[] {
  return array.length === count ? array : array.slice(0, count)
}

function sharedLength(a: string, b: string): number {
  const length = Math.min(a.length, b.length)
  let index = 0
  while (index < length && a.charCodeAt(index) === b.charCodeAt(index)) index++
  return index
}
