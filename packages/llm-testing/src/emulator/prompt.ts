import { COMPACTION_INSTRUCTION } from 'dsh-core'
import type { ProjectedMessage } from 'dsh-llm'
import { compactionReply, echoReply as scriptedEcho } from 'dsh-llm-scripted'

/** A tool declaration as rendered at the front of a prompt. */
export interface RenderedTool {
  name: string
  /** Characters from the start of the prompt to the end of this declaration. */
  end: number
}

/** A cache marker the request put on a block (`cache_control`), with its TTL. */
export interface RenderedMark {
  /** Index of the marked block in `blockEnds`. */
  block: number
  /** Anthropic's and DashScope's `5m` / `1h`; OpenAI's `30m` / `12h`. */
  ttl: '5m' | '1h' | '30m' | '12h'
}

/** A request's prompt as the model sees it, plus what the emulator's accounting needs to know about it. */
export interface RenderedPrompt {
  /** The serialization the prefix cache works on. */
  text: string
  /** Characters after each content block (a tool, a system part, a message block), in prompt order. */
  blockEnds: number[]
  /** Cache markers, in prompt order. */
  marks: RenderedMark[]
  /** OpenAI's `prompt_cache_key`, when the request set one (it joins the routing hash). */
  cacheKey?: string
  /** OpenAI's `prompt_cache_options.mode`, when the request set one (`explicit`: only breakpoints are cached). */
  cacheMode?: 'explicit' | 'implicit'
  /** llama.cpp's `id_slot`, when the request set one (the slot that runs it; `-1`: the server's pick). */
  slot?: number
  /** Rendered tool declarations, in prompt order; they come first. */
  tools: RenderedTool[]
  /** Every declared tool name, deferred declarations included. */
  declared: string[]
}

/** The conversation reduced to what the emulated model answers from. */
export type Turn =
  | { role: 'user'; text: string }
  | { role: 'assistant' }
  | { role: 'tool'; name: string; output: string }

/** A request as the emulator understood it, with the protocol problems it found in it. */
export interface ReadRequest {
  problems: string[]
  prompt: RenderedPrompt
  turns: Turn[]
  /** Set when the request announces tool changes in its history (Anthropic's tool-change blocks), so a tool change need not shrink its ideal. */
  announcesToolChanges?: boolean
}

/** Prompt usage the emulator reports for one request. */
export interface PromptUsage {
  promptTokens: number
  cachedTokens: number
  /** Tokens written to an explicit cache (Anthropic's `cache_creation_input_tokens`, OpenAI's `cache_write_tokens`). */
  writtenTokens?: number
  outputTokens: number
}

/** Builds a prompt text piece by piece, remembering where each tool declaration ends. */
export class PromptWriter {
  private readonly parts: string[] = []
  private length = 0
  readonly tools: RenderedTool[] = []
  private readonly blockEnds: number[] = []
  private readonly marks: RenderedMark[] = []
  cacheKey?: string
  cacheMode?: RenderedPrompt['cacheMode']
  slot?: number
  /** The lifetime a breakpoint without its own `ttl` inherits (OpenAI's `prompt_cache_options.ttl`). */
  breakpointTtl?: '30m'

  tool(name: string, definition: object): void {
    this.write(`<tool>${JSON.stringify(definition)}</tool>\n`)
    this.tools.push({ name, end: this.length })
  }

  /** Appends one content block. */
  write(text: string): void {
    this.parts.push(text)
    this.length += text.length
    this.blockEnds.push(this.length)
  }

  /** Appends text to the block written last (a message's closing tag). */
  extend(text: string): void {
    this.parts.push(text)
    this.length += text.length
    if (this.blockEnds.length) this.blockEnds[this.blockEnds.length - 1] = this.length
  }

  /** Marks the block written last as a cache breakpoint. */
  mark(ttl: RenderedMark['ttl'] = '5m'): void {
    if (this.blockEnds.length) this.marks.push({ block: this.blockEnds.length - 1, ttl })
  }

  get markCount(): number {
    return this.marks.length
  }

  finish(declared: string[]): RenderedPrompt {
    return {
      text: this.parts.join(''), blockEnds: this.blockEnds, marks: this.marks, tools: this.tools, declared,
      ...(this.cacheKey === undefined ? {} : { cacheKey: this.cacheKey }),
      ...(this.cacheMode === undefined ? {} : { cacheMode: this.cacheMode }),
      ...(this.slot === undefined ? {} : { slot: this.slot }),
    }
  }
}

/** A reply of the emulated model: a text, or one tool call. */
export interface ModelReply {
  text: string
  call?: { id: string; name: string; arguments: string }
}

/**
 * Answers the way the offline `scripted-echo` model does (it is that model's own `echoReply`): `/call NAME
 * {json}` in the last user message asks for that tool call, and once its result is in, reports it; any
 * other text is echoed; a compaction request gets that model's summary.
 */
export function echoReply(turns: readonly Turn[]): ModelReply {
  if (isCompaction(turns)) return { text: compactionReply(turns.map(toMessage)).text }
  const reply = scriptedEcho(turns.map(toMessage))
  const call = reply.toolCalls[0]
  if (!call) return { text: reply.text }
  return { text: reply.text, call: { id: call.id!, name: call.name, arguments: JSON.stringify(call.arguments) } }
}

/** True when the conversation ends with DSH's compaction instruction: the request asks for a summary. */
export function isCompaction(turns: readonly Turn[]): boolean {
  const last = turns.at(-1)
  return last?.role === 'user' && last.text === COMPACTION_INSTRUCTION
}

/** The message the scripted model reads for a turn; it looks only at roles, user text and tool results. */
function toMessage(turn: Turn): ProjectedMessage {
  if (turn.role === 'user') return turn
  if (turn.role === 'assistant') return { role: 'assistant', text: '', toolCalls: [] }
  return { role: 'tool', id: '', name: turn.name, output: turn.output, isError: false }
}

/** Splits text into a few stream deltas. */
export function pieces(text: string): string[] {
  return text.match(/[\s\S]{1,24}/g) ?? []
}

/** A JSON object (not an array, not null). */
export function isObject(value: unknown): value is Record<string, any> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
