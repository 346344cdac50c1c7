export { OpenAIProvider as default } from './plugin.ts'
export { chatWireBody, createOpenAIAdapter } from './adapter.ts'
export type { OpenAIConfig } from './config.ts'
