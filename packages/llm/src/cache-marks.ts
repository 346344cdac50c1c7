import type { ModelCachePolicy } from './profiles/types.ts'

/**
 * From a breakpoint, a provider with explicit breakpoints (Anthropic, DashScope) looks this many content
 * blocks back for an entry an earlier request wrote. The profiles, the planner's grid and the emulated
 * providers of `dsh-llm-testing` all read it from here.
 */
export const LOOKBACK_BLOCKS = 20

/** One history message of a request as its wire sends it, for marker planning. */
export interface MarkableMessage {
  /** Content blocks the wire sends for it (a string content is one block). */
  blocks: number
  /** Whether a marker may sit on its blocks (not on a system-role tool-change message; on Chat Completions only on text content). */
  markable: boolean
}

/** What marker planning reads of a request: its declared tools, its system prompt and its history, in prefix order. */
export interface MarkableRequest {
  /** The declared tools in wire order: whether each is deferred (`defer_loading`, outside the cached prefix). */
  tools: readonly { deferred: boolean }[]
  /** Whether the request has a system prompt. */
  system: boolean
  messages: readonly MarkableMessage[]
}

/** A marked history block: the index of its message in `MarkableRequest.messages` and its index among that message's blocks. */
export interface MarkedBlock {
  message: number
  block: number
}

/** Where a request's cache markers go; an empty plan (`NO_MARKS`) marks nothing. */
export interface CacheMarkPlan {
  /** The index of the declared tool that carries a marker. */
  tool?: number
  /** Whether the system prompt carries one. */
  system: boolean
  /** Marked history blocks, in prefix order. */
  blocks: readonly MarkedBlock[]
}

/** The plan of a request that carries no cache markers. */
export const NO_MARKS: CacheMarkPlan = Object.freeze({ system: false, blocks: Object.freeze([]) as readonly MarkedBlock[] })

/**
 * Where the cache markers of a request go, from its model's cache policy (the profile's facts) and what the
 * request holds. The one answer to the question: each adapter applies it to its wire body, and the
 * cache-break detector predicts from it (through `LlmRuntime.cacheMarks`). Pure.
 * - anthropic (`cache_control`, at most `maxBreakpoints`): the last tool declared up front, the end of the
 *   system prompt, the newest history block, and with the breakpoints left the grid points below it (every
 *   `lookbackBlocks`th block, highest first), so the previous request's entry is found from the grid point
 *   above it once a step adds more blocks than the lookback spans. A marker that would land in a
 *   non-markable message (a system-role tool-change message) goes to the last markable block before it.
 * - openai on a model that takes explicit breakpoints (`explicitBreakpoints`), and dashscope: the system
 *   prompt and the newest message, when that message is markable (has text content).
 * - any other profile or model: none.
 */
export function planCacheMarks(policy: ModelCachePolicy, request: MarkableRequest): CacheMarkPlan {
  const { profile } = policy
  if (profile.id === 'anthropic') return gridPlan(request, profile.cache.maxBreakpoints ?? 4, profile.cache.lookbackBlocks ?? LOOKBACK_BLOCKS)
  if (profile.id === 'dashscope' || (profile.id === 'openai' && policy.explicitBreakpoints)) return systemAndNewest(request)
  return NO_MARKS
}

function gridPlan(request: MarkableRequest, max: number, lookback: number): CacheMarkPlan {
  let budget = max
  const tool = request.tools.findLastIndex((entry) => !entry.deferred)
  if (tool >= 0) budget--
  if (request.system) budget--
  const head = { ...tool >= 0 && { tool }, system: request.system }
  // markable[i]: the last block at or before position i that is not in a non-markable message (-1: none)
  const markable: number[] = []
  const located: MarkedBlock[] = []
  request.messages.forEach((message, index) => {
    for (let block = 0; block < message.blocks; block++) {
      markable.push(message.markable ? markable.length : markable.at(-1) ?? -1)
      located.push({ message: index, block })
    }
  })
  const blocks = markable.length
  if (blocks === 0 || budget <= 0) return { ...head, blocks: [] }
  const newest = markable[blocks - 1]!
  if (newest < 0) return { ...head, blocks: [] }
  const extras: number[] = []
  for (let grid = Math.floor((blocks - 1) / lookback) * lookback - 1; grid >= 0 && extras.length < budget - 1; grid -= lookback) {
    const target = markable[grid]!
    if (target >= 0 && target < newest && !extras.includes(target)) extras.push(target)
  }
  return { ...head, blocks: [...extras, newest].sort((a, b) => a - b).map((position) => located[position]!) }
}

function systemAndNewest(request: MarkableRequest): CacheMarkPlan {
  const newest = request.messages.length - 1
  const marked = newest >= 0 && request.messages[newest]!.markable
  return { system: request.system, blocks: marked ? [{ message: newest, block: 0 }] : [] }
}

/**
 * One cache marker of a request in the request's own terms (`LlmAdapter.cacheMarks`): on the declared tool
 * `name`, at the end of the system prompt, or on block `block` of `options.messages[index]` (blocks as the
 * wire counts them: an assistant message's text, then one per tool call; one for any other message).
 */
export type RequestMark =
  | { at: 'tool'; name: string }
  | { at: 'system' }
  | { at: 'message'; index: number; block: number }
