/**
 * The loopback prefix-caching provider of the cache benchmark, for any package's tests: Chat Completions,
 * DeepSeek's route and Messages on 127.0.0.1, answering like `scripted-echo` and reporting the cached prefix
 * tokens of each request in its usage (see `startEmulator`).
 */
export { startEmulator } from './emulator.ts'
export { MAX_MARKS } from './provider-cache.ts'
export { emulatedAppFile } from './emulated-app.ts'
export { ManualClock } from './manual-clock.ts'
