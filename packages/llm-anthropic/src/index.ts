export { AnthropicProvider as default } from './plugin.ts'
export { createAnthropicAdapter, messagesWireBody } from './adapter.ts'
export type { AnthropicConfig } from './config.ts'
