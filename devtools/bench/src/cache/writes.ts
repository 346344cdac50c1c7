import type { ConfigurationRun } from './conversation.ts'

/** The configurations whose cache writes the benchmark reports, by the name their keys carry. */
const WRITES: Record<string, string> = {
  openai_breakpoints: 'openai_breakpoints',
  // today's implicit mode (a model before GPT-5.6): OpenAI neither bills nor reports writes there
  openai_prompt_cache_key: 'openai_implicit',
}

/**
 * `cache_write_tokens_<name>`: Σ of the writes the emulated provider reported (OpenAI's
 * `prompt_tokens_details.cache_write_tokens`); and `uncached_tokens_<name>`: Σ (prompt − cached), the most
 * any mode could write.
 */
export function writeMetrics(run: ConfigurationRun): Record<string, number> {
  const name = WRITES[run.configuration.key]
  if (!name) return {}
  const sum = (pick: (request: ConfigurationRun['requests'][number]) => number) => run.requests.reduce((total, request) => total + pick(request), 0)
  return {
    [`cache_write_tokens_${name}`]: sum((request) => request.writtenTokens),
    [`uncached_tokens_${name}`]: sum((request) => request.promptTokens - request.cachedTokens),
  }
}
