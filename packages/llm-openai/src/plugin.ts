import { httpAdapterPlugin } from 'dsh-llm/http'
import { chatCompletions } from './adapter.ts'
import { Config } from './config.ts'

/** Cordis plugin: serves `config.models` through one OpenAI-compatible endpoint via `ctx.llm`. */
export class OpenAIProvider extends httpAdapterPlugin(chatCompletions, Config) {}

export default OpenAIProvider
