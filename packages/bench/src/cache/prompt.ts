/** A tool declaration as rendered at the front of a prompt. */
export interface RenderedTool {
  name: string
  /** Characters from the start of the prompt to the end of this declaration. */
  end: number
}

/** A request's prompt as the model sees it, plus what the emulator's accounting needs to know about it. */
export interface RenderedPrompt {
  /** The serialization the prefix cache works on. */
  text: string
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
}

/** Prompt usage the emulator reports for one request. */
export interface PromptUsage {
  promptTokens: number
  cachedTokens: number
  outputTokens: number
}

/** Builds a prompt text piece by piece, remembering where each tool declaration ends. */
export class PromptWriter {
  private readonly parts: string[] = []
  private length = 0
  readonly tools: RenderedTool[] = []

  tool(name: string, definition: object): void {
    this.write(`<tool>${JSON.stringify(definition)}</tool>\n`)
    this.tools.push({ name, end: this.length })
  }

  write(text: string): void {
    this.parts.push(text)
    this.length += text.length
  }

  finish(declared: string[]): RenderedPrompt {
    return { text: this.parts.join(''), tools: this.tools, declared }
  }
}

/** A reply of the emulated model: a text, or one tool call. */
export interface ModelReply {
  text: string
  call?: { id: string; name: string; arguments: string }
}

const CALL_COMMAND = /^\/call\s+(\S+)(?:\s+([\s\S]*))?$/

/**
 * Answers the way the offline `scripted-echo` model does: `/call NAME {json}` in the last user message
 * asks for that tool call, and once its result is in, reports it; any other text is echoed.
 */
export function echoReply(turns: readonly Turn[]): ModelReply {
  let lastUser = -1
  let users = 0
  turns.forEach((turn, index) => {
    if (turn.role !== 'user') return
    lastUser = index
    users++
  })
  const text = lastUser >= 0 ? (turns[lastUser] as { text: string }).text : ''
  const command = CALL_COMMAND.exec(text.trim())
  if (!command) return { text: `echo: ${text}` }
  const [, name = '', json = ''] = command
  const result = turns.slice(lastUser + 1).findLast((turn) => turn.role === 'tool')
  if (result?.role === 'tool') return { text: `tool ${result.name} returned: ${result.output}` }
  return { text: '', call: { id: `call_${users}_1`, name, arguments: json.trim() || '{}' } }
}

/** Splits text into a few stream deltas. */
export function pieces(text: string): string[] {
  return text.match(/[\s\S]{1,24}/g) ?? []
}

/** A JSON object (not an array, not null). */
export function isObject(value: unknown): value is Record<string, any> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
