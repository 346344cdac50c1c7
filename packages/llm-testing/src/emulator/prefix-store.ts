/**
 * The generic automatic prefix cache lives in dsh-llm-scripted, whose default model reports its usage from
 * the same rules; the emulator uses that one module, so both count and cache alike.
 */
export { CHARS_PER_TOKEN, PrefixStore, TOKENS_PER_BLOCK, blockTokens, tokensOf } from 'dsh-llm-scripted'
