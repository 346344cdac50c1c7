import type { IncomingHttpHeaders } from 'node:http'
import { isObject, type PromptWriter } from './prompt.ts'

/** Anthropic's beta for tool-change blocks that name a `tools` entry. */
export const TOOL_CHANGES_BETA = 'mid-conversation-tool-changes-2026-07-01'
/** Anthropic's beta for a `tool_addition` that carries its tool inline (`tool_definition`). */
export const INLINE_TOOLS_BETA = 'inline-tools-2026-09-15'

/** The names of an `anthropic-beta` header (a comma-separated list). */
export function betaNames(headers: IncomingHttpHeaders): Set<string> {
  return new Set(String(headers['anthropic-beta'] ?? '').split(',').map((name) => name.trim()).filter(Boolean))
}

/** What the reader of one Anthropic request knows about its tools, shared with `readAnthropicToolChanges`. */
export interface AnthropicTools {
  /** `defer_loading` declarations by name, with their rendered definitions. */
  deferred: Map<string, string>
  /** Tools declared up front. */
  upFront: Set<string>
  /** Deferred tools some `tool_addition` of the request made available. */
  referenced: Set<string>
  /** Tools defined inline so far. */
  inline: Set<string>
}

/**
 * One `role: 'system'` message on Anthropic's own route, by its documented rules: it follows a user message, is
 * the last message or followed by an assistant one, never next to another system message, and carries only
 * `tool_addition` (a `tool_reference` to a `tools` entry, or under `inline-tools-2026-09-15` a `tool_definition`)
 * and `tool_removal` (a `tool_reference`) blocks, each kind only with its beta in `anthropic-beta`. A deferred
 * declaration enters the prompt here, at its `tool_addition`; an inline definition too. A breakpoint may sit on
 * a block of a system message that is not the last message, never on a trailing one.
 */
export function readAnthropicToolChanges(
  messages: unknown[], index: number, headers: IncomingHttpHeaders, tools: AnthropicTools, writer: PromptWriter,
  problem: (message: string) => void, marker: (value: unknown, where: string) => void,
) {
  const where = `messages[${index}]`
  const content = (messages[index] as { content?: unknown }).content
  const before = messages[index - 1] as { role?: string } | undefined
  const after = messages[index + 1] as { role?: string } | undefined
  if (index === 0) problem(`${where}: a system message cannot be the first message`)
  else if (before?.role !== 'user') problem(`${where}: a system message must follow a user message, not ${JSON.stringify(before?.role)}`)
  if (after !== undefined && after.role !== 'assistant') problem(`${where}: a system message must be the last message or be followed by an assistant message, not ${JSON.stringify(after.role)}`)
  if (!Array.isArray(content) || content.length === 0) return problem(`${where}: a system message without blocks`)
  const betas = betaNames(headers)
  content.forEach((block: any, at: number) => {
    const here = `${where}.content[${at}]`
    const tool = isObject(block) ? block.tool : undefined
    if (block?.type === 'tool_addition' && tool?.type === 'tool_reference' && typeof tool.name === 'string') {
      if (!betas.has(TOOL_CHANGES_BETA)) problem(`${here}: tool_addition without anthropic-beta ${TOOL_CHANGES_BETA}`)
      const definition = tools.deferred.get(tool.name)
      if (definition !== undefined) tools.referenced.add(tool.name)
      else if (!tools.upFront.has(tool.name) && !tools.inline.has(tool.name)) problem(`${here}: tool_addition of ${JSON.stringify(tool.name)}, which no tools entry declares`)
      writer.write(`<tool_addition>${definition ?? JSON.stringify({ name: tool.name })}</tool_addition>\n`)
    } else if (block?.type === 'tool_addition' && tool?.type === 'tool_definition' && isObject(tool.definition)) {
      if (!betas.has(INLINE_TOOLS_BETA)) problem(`${here}: tool_definition without anthropic-beta ${INLINE_TOOLS_BETA}`)
      const { name, description, input_schema: schema } = tool.definition
      if (typeof name !== 'string' || typeof description !== 'string' || !isObject(schema)) return problem(`${here}: tool_definition is not { name, description, input_schema }`)
      if (tools.upFront.has(name) || tools.deferred.has(name)) problem(`${here}: tool_definition of ${JSON.stringify(name)}, which a tools entry already declares`)
      tools.inline.add(name)
      writer.write(`<tool_addition>${JSON.stringify({ name, description, input_schema: schema })}</tool_addition>\n`)
    } else if (block?.type === 'tool_removal' && tool?.type === 'tool_reference' && typeof tool.name === 'string') {
      if (!betas.has(TOOL_CHANGES_BETA)) problem(`${here}: tool_removal without anthropic-beta ${TOOL_CHANGES_BETA}`)
      if (!tools.upFront.has(tool.name) && !tools.deferred.has(tool.name) && !tools.inline.has(tool.name)) problem(`${here}: tool_removal of ${JSON.stringify(tool.name)}, which is neither declared nor defined earlier`)
      writer.write(`<tool_removal>${tool.name}</tool_removal>\n`)
    } else {
      return problem(`${here}: a system message may carry only tool_addition / tool_removal blocks naming a tool_reference or tool_definition, got ${JSON.stringify(block)}`)
    }
    if (block.cache_control !== undefined && after === undefined) return problem(`${here}: cache_control on a trailing system message`)
    marker(block.cache_control, here)
  })
}
