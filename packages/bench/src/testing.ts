/**
 * The loopback prefix-caching provider of the cache benchmark, for other packages' tests: Chat Completions,
 * DeepSeek's route and Messages on 127.0.0.1, answering like `scripted-echo` and reporting the cached prefix
 * tokens of each request in its usage (see `startEmulator`).
 */
export { startEmulator } from './cache/emulator.ts'
export type { LedgerEntry } from './cache/emulator.ts'
export { CHARS_PER_TOKEN, TOKENS_PER_BLOCK } from './cache/prefix-store.ts'
export { emulatedAppFile } from './cache/emulated-app.ts'
export type { EmulatedApp } from './cache/emulated-app.ts'
