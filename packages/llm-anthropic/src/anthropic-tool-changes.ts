import { projectToolUpdates, type GenerateOptions } from 'dsh-llm'
import type { HttpModel } from 'dsh-llm/http'
import { buildMessagesRequest, toWireTool, type BuiltRequest, type ToUpdateBlocks, type WireMessage, type WireToolUpdateBlock } from './request.ts'

/** Anthropic's beta for tool-change blocks that name a `tools` entry (`tool_reference`). */
export const TOOL_CHANGES_BETA = 'mid-conversation-tool-changes-2026-07-01'
/** Anthropic's beta for a `tool_addition` that carries its tool inline (`tool_definition`). */
export const INLINE_TOOLS_BETA = 'inline-tools-2026-09-15'

/** Whether requests for `model` carry Anthropic's own tool-change blocks (its profile and mode say so). */
export function usesAnthropicToolChanges(model: HttpModel | undefined): model is HttpModel & { toolUpdate: 'addition-only' | 'in-history' } {
  return model?.profile.id === 'anthropic' && (model.toolUpdate === 'addition-only' || model.toolUpdate === 'in-history')
}

/**
 * A Messages request on Anthropic's own wire for a model whose mode is `addition-only` or `in-history`. Both
 * project with the in-history rules of dsh-llm (tools never leave the declarations; notices carry additions
 * and removals), then:
 * - `addition-only`: a tool that joins is declared with `defer_loading: true` (outside the cached prefix)
 *   and made available by a `tool_addition` naming it (`tool_reference`); a tool that leaves gets a `tool_removal`.
 * - `in-history`: `tools` stays the sequence's start list; a tool that joins travels inline in its
 *   `tool_addition` (`tool_definition`), one that was declared at the start by reference.
 * The system-role message goes where Anthropic accepts one: right after a user message (one that would follow
 * an assistant message moves behind the next user message), and never two in a row. The request's beta names
 * are those its blocks need. Pure, like `buildMessagesRequest`.
 */
export function buildAnthropicToolChangeRequest(options: GenerateOptions, model: HttpModel & { toolUpdate: 'addition-only' | 'in-history' }, maxTokens: number): BuiltRequest {
  const projection = projectToolUpdates(options, 'in-history')
  const inline = model.toolUpdate === 'in-history'
  const joined = new Set<string>()
  for (const message of projection.messages) if (message.role === 'tool-update') for (const tool of message.added) joined.add(tool.name)
  const declarations = inline
    ? projection.declarations.filter(({ definition, deferred }) => !(deferred && joined.has(definition.name)))
    : projection.declarations
  const declared = new Set(declarations.map(({ definition }) => definition.name))
  const toUpdate: ToUpdateBlocks = (notice) => [
    ...notice.added.map((definition): WireToolUpdateBlock => ({
      type: 'tool_addition',
      tool: declared.has(definition.name) ? { type: 'tool_reference', name: definition.name } : { type: 'tool_definition', definition: toWireTool(definition) },
    })),
    ...notice.removed.map((name): WireToolUpdateBlock => ({ type: 'tool_removal', tool: { type: 'tool_reference', name } })),
  ]
  const built = buildMessagesRequest(options, { ...projection, declarations }, maxTokens, toUpdate)
  const messages = placeSystemMessages(built.body.messages)
  const beta = betasOf(messages)
  return { body: { ...built.body, messages }, hasToolUpdates: built.hasToolUpdates, ...beta && { beta } }
}

/**
 * Moves each system-role message to where Anthropic takes one: right after a user message. One that follows
 * an assistant message waits for the next user message; consecutive ones merge into one.
 */
function placeSystemMessages(messages: WireMessage[]): WireMessage[] {
  const placed: WireMessage[] = []
  let waiting: WireToolUpdateBlock[] = []
  const flush = () => {
    if (!waiting.length) return
    const last = placed.at(-1)
    if (last?.role === 'system') placed[placed.length - 1] = { role: 'system', content: [...last.content, ...waiting] }
    else placed.push({ role: 'system', content: waiting })
    waiting = []
  }
  for (const message of messages) {
    if (message.role === 'system') {
      waiting.push(...message.content)
      if (placed.at(-1)?.role === 'user' || placed.at(-1)?.role === 'system') flush()
      continue
    }
    placed.push(message)
    if (message.role === 'user') flush()
  }
  flush()
  return placed
}

/** The beta names the blocks of `messages` need, comma-separated; undefined when there are none. */
function betasOf(messages: WireMessage[]): string | undefined {
  const names = new Set<string>()
  for (const message of messages) {
    if (message.role !== 'system') continue
    for (const block of message.content) {
      const tool = 'tool' in block ? block.tool : undefined
      names.add(tool && 'type' in tool && tool.type === 'tool_definition' ? INLINE_TOOLS_BETA : TOOL_CHANGES_BETA)
    }
  }
  return names.size ? [TOOL_CHANGES_BETA, INLINE_TOOLS_BETA].filter((name) => names.has(name)).join(',') : undefined
}
