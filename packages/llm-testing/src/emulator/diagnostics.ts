import { isObject } from './prompt.ts'
import { tokensOf } from './prefix-store.ts'

/**
 * What Anthropic's cache diagnostics keep of a request that carried `diagnostics`, keyed by its response id:
 * the parts it compares (model, tools, system, each message), without cache markers, and the prompt's length.
 */
interface RequestPrint {
  model: string
  tools: string
  system: string
  messages: string[]
  /** The rendered prompt, for the tokens a divergence cost. */
  text: string
}

/**
 * What a part says, as the model reads it: `cache_control` is no part of it, and a string is the text block
 * it stands for (a marked message goes as blocks, the same message unmarked as a string).
 */
const unmarked = (value: unknown): string => JSON.stringify(blocks(value) ?? null, (key, inner) => (key === 'cache_control' ? undefined : inner))
const blocks = (value: unknown): unknown => {
  if (typeof value === 'string') return [{ type: 'text', text: value }]
  if (isObject(value) && typeof value.content === 'string') return { ...value, content: blocks(value.content) }
  return value
}

/**
 * The emulator's reading of Anthropic's cache diagnostics
 * (https://platform.claude.com/docs/en/build-with-claude/cache-diagnostics): a request with
 * `diagnostics: { previous_message_id }` is compared with the stored request of that response, part by part
 * in prefix order — model, tools, system, then messages (which may only have grown) — and the first that
 * differs is the `cache_miss_reason`, with the tokens of the previous prompt after the first differing
 * character as `cache_missed_input_tokens`. An id the store does not hold (evicted, never stored) is
 * `previous_message_not_found`; no difference is `diagnostics: null`. The comparison is structural: an
 * expired entry with the same request is not a divergence.
 */
export class CacheDiagnostics {
  private readonly prints = new Map<string, RequestPrint>()
  private readonly forced: unknown[] = []

  /** Checks the request's `diagnostics` field; returns the problem, if any. */
  static problem(body: Record<string, any>, profile: string): string | undefined {
    if (body.diagnostics === undefined) return undefined
    if (profile !== 'anthropic') return `diagnostics on the ${profile} route, whose provider does not document it`
    const value = body.diagnostics
    const keys = isObject(value) ? Object.keys(value) : []
    const id = isObject(value) ? value.previous_message_id : undefined
    if (!isObject(value) || keys.some((key) => key !== 'previous_message_id') || (id !== null && (typeof id !== 'string' || !id))) {
      return `diagnostics ${JSON.stringify(value)} is not { previous_message_id: string | null }`
    }
  }

  /** The next response answers with this `diagnostics` value, whatever the comparison finds (a reason DSH does not know, a pending one). */
  force(diagnostics: unknown): void {
    this.forced.push(diagnostics)
  }

  /** A server-side eviction: every stored request is forgotten. */
  evict(): void {
    this.prints.clear()
  }

  /**
   * The response's `diagnostics` for a request (undefined when the request carried none, so the response
   * has no such key), storing the request under `responseId` for the next one to name.
   */
  answer(body: Record<string, any>, text: string, responseId: string): unknown {
    if (!isObject(body.diagnostics)) return undefined
    const print: RequestPrint = {
      model: String(body.model), tools: unmarked(body.tools), system: unmarked(body.system),
      messages: (Array.isArray(body.messages) ? body.messages : []).map(unmarked), text,
    }
    const previousId = body.diagnostics.previous_message_id as string | null
    const previous = previousId === null ? undefined : this.prints.get(previousId)
    this.prints.set(responseId, print)
    if (this.forced.length) return this.forced.shift()
    if (previousId === null) return null
    if (!previous) return { cache_miss_reason: { type: 'previous_message_not_found' } }
    const reason = divergence(previous, print)
    if (!reason) return null
    return { cache_miss_reason: { type: reason, cache_missed_input_tokens: missedTokens(previous.text, text) } }
  }
}

function divergence(previous: RequestPrint, current: RequestPrint): string | undefined {
  if (previous.model !== current.model) return 'model_changed'
  if (previous.tools !== current.tools) return 'tools_changed'
  if (previous.system !== current.system) return 'system_changed'
  const grown = previous.messages.length <= current.messages.length && previous.messages.every((message, index) => message === current.messages[index])
  return grown ? undefined : 'messages_changed'
}

/** Tokens of the previous prompt from its first character the current one does not share. */
function missedTokens(previous: string, current: string): number {
  let shared = 0
  const end = Math.min(previous.length, current.length)
  while (shared < end && previous.charCodeAt(shared) === current.charCodeAt(shared)) shared++
  return tokensOf(previous.length) - tokensOf(shared)
}
