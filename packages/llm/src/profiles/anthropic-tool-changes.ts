import type { ProfileSource, ToolChangeModels } from './types.ts'

const MID_CONVERSATION = 'https://platform.claude.com/docs/en/build-with-claude/mid-conversation-system-messages'
const TOOL_CACHING = 'https://platform.claude.com/docs/en/agents-and-tools/tool-use/tool-use-with-prompt-caching'

/**
 * The Claude models Anthropic documents mid-conversation tool changes for (`tool_addition` / `tool_removal`
 * blocks in a `role: 'system'` message): Opus 4.8, Opus 5, Opus 5.5, Sonnet 5.5, Haiku 5.5, Fable 5 and
 * 5.1, Mythos 5 and 5.1; an id may carry a date suffix. Sonnet 5 takes system messages but not the tool
 * blocks; older models take neither.
 */
export const ANTHROPIC_TOOL_CHANGE_MODELS = /^claude-(opus-4-8|opus-5|opus-5-5|sonnet-5-5|haiku-5-5|fable-5|fable-5-1|mythos-5|mythos-5-1)(-\d{8})?$/

/** Anthropic's models that take tool-change blocks, and what any other model gets. */
export const anthropicToolChanges: ToolChangeModels = {
  models: ANTHROPIC_TOOL_CHANGE_MODELS,
  modes: ['addition-only', 'in-history'],
  fallback: 'append',
  documented: 'Anthropic documents mid-conversation tool changes for Claude Opus 4.8, Opus 5, Opus 5.5, Sonnet 5.5, Haiku 5.5, Fable 5, Fable 5.1, Mythos 5 and Mythos 5.1 only',
}

/** Where the facts of Anthropic's tool-change blocks come from. */
export const ANTHROPIC_TOOL_CHANGE_SOURCES: readonly ProfileSource[] = [
  {
    facts: 'role: system messages in messages with tool_addition / tool_removal blocks (beta mid-conversation-tool-changes-2026-07-01; a tool_definition inline under inline-tools-2026-09-15) keep the cached prefix before them; the models that take them; a system message follows a user message and is the last message or followed by an assistant turn',
    url: MID_CONVERSATION,
  },
  { facts: 'deferred tools (defer_loading: true) are not part of the cached tools prefix, so declaring one leaves the prefix intact', url: TOOL_CACHING },
]
