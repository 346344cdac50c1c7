/**
 * The user message that ends a compaction request. It follows the conversation unchanged, so everything
 * before it is the prefix the provider has already cached. The wording is fixed: the offline model and
 * the benchmark's emulated provider recognise a compaction request by it, as a real model reads it.
 */
export const COMPACTION_INSTRUCTION = [
  '[context compaction] The conversation above is about to be replaced by a summary, because it is close to',
  'the context window. Write that summary now, as plain text, without calling any tool. Keep: what the user',
  'asked for and still wants, decisions made and why, files, names and values that matter, what the tools',
  'returned that is still needed, what is done and what remains. Leave out greetings and anything superseded.',
].join(' ')

/** Opens the message that stands for the compacted history in every later request. */
export const SUMMARY_PREFIX = '[context summary] The earlier conversation was compacted. Summary:\n'
