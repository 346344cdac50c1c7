import type { ToolUpdateMode } from 'dsh-llm'
import { TOOL_ORDER_REST } from 'dsh-system-prompt'
import type { startEmulator } from 'dsh-llm-testing/emulator'
import { CORE_TOOL_NAMES } from './tools.ts'

/** A wire the emulator speaks (Chat Completions, DeepSeek's route, Messages). */
type Wire = Awaited<ReturnType<typeof startEmulator>>['ledger'][number]['wire']

/** One full run of the session: which wire, which tool order, which tool-update mode. */
export interface Configuration {
  key: string
  /** What it stands for, for tables and the chart legend. */
  label: string
  wire: Wire
  /** Baseline only: reorder tools by registration in this process (a harness without canonical order). */
  registrationOrder?: boolean
  toolOrder?: string[]
  /** Tool-update mode of the model entry; absent: the profile's default (append where nothing better is known). */
  toolUpdate?: ToolUpdateMode
  /**
   * The emulator's path prefix, which picks the provider whose cache rules answer: '' (generic Chat
   * Completions; DeepSeek's Anthropic-compatible Messages), '/openai', '/dashscope', '/deepseek', '/anthropic'.
   */
  route?: string
  /** More keys of the model entry (the provider profile, its caching options). */
  entry?: Record<string, unknown>
  /** More keys of the adapter's config (e.g. `promptCacheKey`). */
  adapter?: Record<string, unknown>
  /** Where the tools come from: `dsh-tools-static` plugins (default) or real MCP servers through `dsh-tools-mcp`. */
  source?: 'static' | 'mcp'
  /** MCP only: each server lists its schemas with object keys in a new order at every start. */
  shuffleKeys?: boolean
  /** The system prompt's `schemaKeyOrder` (canonical when unset). */
  schemaKeyOrder?: 'canonical' | 'registered'
  /** The model's context window in tokens; with it the loop compacts at `COMPACT_AT` of it. */
  contextWindow?: number
}

/** The share of the window at which the compaction configuration compacts. */
export const COMPACT_AT = 0.8

/**
 * The compaction configuration's window: uncompacted, the session's requests grow from about 3,600 to
 * 6,700 tokens (the emulator counts a token per four characters), so at 0.8 of 5,500 tokens it compacts
 * about every six turns — five times in thirty.
 */
export const SMALL_WINDOW = 5_500

const DEEPSEEK = { provider: 'deepseek' }

export const CONFIGURATIONS: Configuration[] = [
  { key: 'registration_order', label: 'registration order (baseline), chat completions', wire: 'chat-completions', registrationOrder: true, toolUpdate: 'none' },
  { key: 'canonical', label: 'canonical order, chat completions', wire: 'chat-completions', toolUpdate: 'none' },
  { key: 'tool_order', label: 'toolOrder: core first, chat completions', wire: 'chat-completions', toolOrder: [...CORE_TOOL_NAMES, TOOL_ORDER_REST], toolUpdate: 'none' },
  // append: tools that join go after the declared ones, so an addition keeps the whole tool block
  { key: 'append_addition', label: 'toolUpdate append, chat completions', wire: 'chat-completions', toolUpdate: 'append' },
  // DeepSeek's Anthropic-compatible Messages route (the emulator's /v1/messages), automatic 64-token units
  { key: 'deepseek_anthropic_addition_only', label: 'deepseek messages, toolUpdate addition-only', wire: 'messages', toolUpdate: 'addition-only', entry: DEEPSEEK },
  { key: 'deepseek_anthropic_in_history', label: 'deepseek messages, toolUpdate in-history', wire: 'messages', toolUpdate: 'in-history', entry: DEEPSEEK },
  { key: 'deepseek_addition_only', label: 'deepseek chat completions, toolUpdate addition-only', wire: 'deepseek', route: '/deepseek', toolUpdate: 'addition-only', entry: DEEPSEEK },
  // Anthropic's own API caches only at breakpoints: the anthropic profile places them; a harness that does
  // not know the provider's rules (the generic profile on the same wire) sends none and reads nothing
  { key: 'anthropic_breakpoints', label: 'anthropic messages, profile anthropic (breakpoints)', wire: 'messages', route: '/anthropic', entry: { provider: 'anthropic' } },
  // Anthropic's own tool-change blocks (emulated-coder is no Claude id the profile knows: the entry says it takes them)
  { key: 'anthropic_addition_only', label: 'anthropic messages, breakpoints, toolUpdate addition-only', wire: 'messages', route: '/anthropic', toolUpdate: 'addition-only', entry: { provider: 'anthropic', toolChanges: true } },
  { key: 'anthropic_in_history', label: 'anthropic messages, breakpoints, toolUpdate in-history', wire: 'messages', route: '/anthropic', toolUpdate: 'in-history', entry: { provider: 'anthropic', toolChanges: true } },
  { key: 'anthropic_no_markers', label: 'anthropic messages, no cache_control (baseline)', wire: 'messages', route: '/anthropic', entry: { provider: 'generic' } },
  { key: 'openai_prompt_cache_key', label: 'openai chat completions, profile openai (prompt_cache_key)', wire: 'chat-completions', route: '/openai', entry: { provider: 'openai' } },
  // without a key the routing hash is the prompt's opening alone: a tool sorted into it moves the session
  { key: 'openai_no_key', label: 'openai chat completions, promptCacheKey off', wire: 'chat-completions', route: '/openai', entry: { provider: 'openai' }, adapter: { promptCacheKey: 'off' } },
  // GPT-5.6 and later: explicit breakpoints (mode explicit) on the stable prefix and the newest message; the
  // bench's model id is no GPT one, so its entry turns them on with cacheBreakpoints
  { key: 'openai_breakpoints', label: 'openai chat completions, explicit breakpoints (GPT-5.6+)', wire: 'chat-completions', route: '/openai', entry: { provider: 'openai', cacheBreakpoints: true } },
  { key: 'dashscope_markers', label: 'dashscope chat completions, profile dashscope (cache_control)', wire: 'chat-completions', route: '/dashscope', entry: { provider: 'dashscope' } },
  // the provider rows above run each profile's default mode (append); the same with the effective-list projection
  { key: 'anthropic_none', label: 'anthropic messages, breakpoints, toolUpdate none', wire: 'messages', route: '/anthropic', toolUpdate: 'none', entry: { provider: 'anthropic' } },
  { key: 'openai_none', label: 'openai chat completions, prompt_cache_key, toolUpdate none', wire: 'chat-completions', route: '/openai', toolUpdate: 'none', entry: { provider: 'openai' } },
  { key: 'dashscope_none', label: 'dashscope chat completions, markers, toolUpdate none', wire: 'chat-completions', route: '/dashscope', toolUpdate: 'none', entry: { provider: 'dashscope' } },
  { key: 'mcp_registration_order', label: 'MCP servers, registration order (baseline), chat completions', wire: 'chat-completions', registrationOrder: true, source: 'mcp', toolUpdate: 'none' },
  { key: 'mcp_canonical', label: 'MCP servers, canonical order, chat completions', wire: 'chat-completions', source: 'mcp', toolUpdate: 'none' },
  { key: 'mcp_key_shuffle_registered', label: 'MCP servers shuffling schema keys, registered key order (baseline), chat completions', wire: 'chat-completions', source: 'mcp', shuffleKeys: true, schemaKeyOrder: 'registered', toolUpdate: 'none' },
  { key: 'mcp_key_shuffle', label: 'MCP servers shuffling schema keys, canonical key order, chat completions', wire: 'chat-completions', source: 'mcp', shuffleKeys: true, toolUpdate: 'none' },
  { key: 'compaction', label: `canonical order, chat completions, ${SMALL_WINDOW}-token window`, wire: 'chat-completions', contextWindow: SMALL_WINDOW, toolUpdate: 'none' },
]
