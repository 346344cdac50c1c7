import { httpAdapterPlugin } from 'dsh-llm/http'
import { messages } from './adapter.ts'
import { Config } from './config.ts'

/** Cordis plugin: serves `config.models` through one Anthropic-Messages-compatible endpoint via `ctx.llm`. */
export class AnthropicProvider extends httpAdapterPlugin(messages, Config) {}

export default AnthropicProvider
