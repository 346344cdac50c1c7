import { LOOKBACK_BLOCKS } from '../cache-marks.ts'
import { OPENAI_BREAKPOINTS } from './model-breakpoints.ts'
import { ANTHROPIC_TOOL_CHANGE_SOURCES, anthropicToolChanges } from './anthropic-tool-changes.ts'
import { ANTHROPIC_PRICES } from './prices.ts'
import type { CacheTtl, ProviderId, ProviderProfile } from './types.ts'

const ANTHROPIC_CACHING = 'https://docs.claude.com/en/docs/build-with-claude/prompt-caching'
const ANTHROPIC_TOOL_CACHING = 'https://platform.claude.com/docs/en/agents-and-tools/tool-use/tool-use-with-prompt-caching'
const ANTHROPIC_MESSAGES = 'https://docs.claude.com/en/api/messages'
const OPENAI_CACHING = 'https://developers.openai.com/api/docs/guides/prompt-caching'
const OPENAI_CHAT_CREATE = 'https://developers.openai.com/api/reference/resources/chat/subresources/completions/methods/create'
const DEEPSEEK_CACHING = 'https://api-docs.deepseek.com/guides/kv_cache'
const DASHSCOPE_CACHING = 'https://www.alibabacloud.com/help/en/model-studio/context-cache'

const FIVE_MINUTES: CacheTtl = { name: '5m', seconds: 300, refreshedOnHit: true }

// Claude models whose minimum cacheable prompt is 4,096 tokens; the others' is 1,024.
const LARGE_MINIMUM = /^claude-(haiku-4-5|opus-4-[5-9])/

const anthropic: ProviderProfile = {
  id: 'anthropic',
  name: 'Anthropic',
  cache: {
    mechanism: 'explicit-breakpoints',
    unitTokens: 1,
    minimumTokens: (model) => (LARGE_MINIMUM.test(model) ? 4096 : 1024),
    maxBreakpoints: 4,
    lookbackBlocks: LOOKBACK_BLOCKS,
    ttls: [FIVE_MINUTES, { name: '1h', seconds: 3600, refreshedOnHit: true }],
    ttlChoices: ['5m', '1h'],
  },
  toolUpdates: ['none', 'append', 'addition-only', 'in-history'],
  // append until a served model is known to take tool_addition blocks (an entry asks for them by toolUpdate)
  defaultToolUpdate: 'append',
  refusal: 'Anthropic takes every mode on the models that take tool-change blocks',
  toolChanges: anthropicToolChanges,
  usageFields: ['input_tokens', 'cache_read_input_tokens', 'cache_creation_input_tokens', 'output_tokens'],
  sources: [
    { facts: 'breakpoints (at most 4), prefix order tools → system → messages, 20-block lookback, minimum length per model, 5 m / 1 h TTL, 1 h entries before 5 m ones, usage fields', url: ANTHROPIC_CACHING },
    { facts: 'a deferred tool keeps the cache only when the model finds it through the tool search tool', url: ANTHROPIC_TOOL_CACHING },
    { facts: 'message roles user and assistant (system-role messages: see below)', url: ANTHROPIC_MESSAGES },
    ...ANTHROPIC_TOOL_CHANGE_SOURCES,
  ],
  prices: ANTHROPIC_PRICES,
}

const openai: ProviderProfile = {
  id: 'openai',
  name: 'OpenAI',
  cache: {
    mechanism: 'automatic-prefix',
    unitTokens: 128,
    minimumTokens: () => 1024,
    // in memory: cleared after 5 to 10 minutes without use, always within an hour
    ttls: [{ name: 'in-memory', seconds: 600, refreshedOnHit: true }, { name: '24h', seconds: 86_400, refreshedOnHit: true }],
    ttlChoices: ['in-memory', '24h'],
    modelBreakpoints: OPENAI_BREAKPOINTS,
  },
  toolUpdates: ['none', 'append'],
  defaultToolUpdate: 'append',
  refusal: "OpenAI's Chat Completions API takes no tool_addition blocks and no defer_loading declarations",
  usageFields: ['prompt_tokens', 'prompt_tokens_details.cached_tokens', 'prompt_tokens_details.cache_write_tokens'],
  sources: [
    { facts: 'automatic from 1,024 tokens, hits in 128-token steps, routing by the first ~256 tokens plus prompt_cache_key, prompt_cache_retention in_memory | 24h, usage prompt_tokens_details.cached_tokens', url: OPENAI_CACHING },
    { facts: 'GPT-5.6 and later: prompt_cache_breakpoint { mode: explicit, ttl? } on content parts, prompt_cache_options { mode, ttl: 30m }, at most 4 breakpoints written per request, matching over the latest 80, prompt_cache_retention deprecated, writes reported as prompt_tokens_details.cache_write_tokens (openai 7.60 types)', url: OPENAI_CHAT_CREATE },
  ],
}

const deepseek: ProviderProfile = {
  id: 'deepseek',
  name: 'DeepSeek',
  cache: {
    mechanism: 'automatic-prefix',
    unitTokens: 64,
    minimumTokens: () => 64,
    // entries are cleared when unused, "usually within a few hours to a few days": no bound to predict with
    ttls: [{ name: 'best-effort', refreshedOnHit: true }],
    ttlChoices: [],
  },
  toolUpdates: ['none', 'addition-only', 'in-history', 'append'],
  defaultToolUpdate: 'append',
  refusal: 'DeepSeek takes every mode',
  usageFields: ['prompt_cache_hit_tokens', 'prompt_cache_miss_tokens'],
  sources: [
    { facts: 'automatic and best-effort, on disk, 64-token units, cleared when unused, usage prompt_cache_hit_tokens / prompt_cache_miss_tokens', url: DEEPSEEK_CACHING },
  ],
}

const dashscope: ProviderProfile = {
  id: 'dashscope',
  name: 'DashScope',
  cache: {
    mechanism: 'explicit-breakpoints',
    unitTokens: 1,
    minimumTokens: () => 1024,
    maxBreakpoints: 4,
    lookbackBlocks: LOOKBACK_BLOCKS,
    ttls: [FIVE_MINUTES],
    ttlChoices: ['5m'],
  },
  toolUpdates: ['none', 'append'],
  defaultToolUpdate: 'append',
  refusal: "DashScope's OpenAI-compatible API takes no tool_addition blocks and no defer_loading declarations",
  usageFields: ['prompt_tokens', 'prompt_tokens_details.cached_tokens', 'prompt_tokens_details.cache_creation_input_tokens'],
  sources: [
    { facts: 'explicit cache: cache_control { type: ephemeral } on message content, at most 4 markers, 20-block lookback, minimum 1,024 tokens, 5 min reset on a hit; implicit cache otherwise; usage cached_tokens / cache_creation_input_tokens', url: DASHSCOPE_CACHING },
  ],
}

const generic: ProviderProfile = {
  id: 'generic',
  name: 'a generic endpoint',
  cache: {
    // vLLM's and llama.cpp's prefix caches: automatic, per block of the server's choosing
    mechanism: 'automatic-prefix',
    unitTokens: 1,
    minimumTokens: () => 1,
    ttls: [{ name: 'best-effort', refreshedOnHit: true }],
    ttlChoices: [],
  },
  toolUpdates: ['none', 'append'],
  defaultToolUpdate: 'append',
  refusal: 'plain Chat Completions and Messages servers take no tool_addition blocks (llama.cpp answers HTTP 400 "unsupported content[].type"); set provider: deepseek on an endpoint that does',
  usageFields: ['prompt_tokens_details.cached_tokens'],
  sources: [],
}

/** Every profile, by id. */
export const PROFILES: Readonly<Record<ProviderId, ProviderProfile>> = Object.freeze({ anthropic, openai, deepseek, dashscope, generic })

/** The profile ids, in the order the README table lists them. */
export const PROVIDER_IDS: readonly ProviderId[] = Object.freeze(['anthropic', 'openai', 'deepseek', 'dashscope', 'generic'])
