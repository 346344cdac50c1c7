import { httpAdapterPlugin } from 'dsh-llm/http'
import { createOpenAIAdapter } from './adapter.ts'
import { Config } from './config.ts'

/** Cordis plugin: serves `config.models` through one OpenAI-compatible endpoint via `ctx.llm`. */
export class OpenAIProvider extends httpAdapterPlugin('dsh-llm-openai', Config, createOpenAIAdapter) {}

export default OpenAIProvider
