import type { Context } from 'cordis'
import type { ToolUpdateMode } from 'dsh-llm'
import type LlmRuntime from 'dsh-llm'
import Schema from 'schemastery'
import { createScriptedAdapter } from './adapter.ts'
import { LlmScriptedError } from './error.ts'
import { loadScript } from './script.ts'

/** What a model's tokens cost, as `ctx.llm.price` answers it (USD per million tokens). */
export type ModelPrice = NonNullable<ReturnType<LlmRuntime['price']>>

/** A served model id, or an entry with its own context window and price (as an HTTP model entry's `price`). */
export type ScriptedModelEntry = string | { id: string; contextWindow?: number; price?: Partial<ModelPrice> }

/** Configuration of the scripted model plugin. */
export interface Config {
  models: ScriptedModelEntry[]
  script?: string
  toolUpdate: ToolUpdateMode
  cacheFile?: string
}

/** Context window of a scripted model whose entry sets none, in (estimated) tokens. */
export const DEFAULT_CONTEXT_WINDOW = 128_000

export const Config: Schema<Partial<Config>, Config> = Schema.object({
  models: Schema.array(Schema.union([
    Schema.string(),
    Schema.object({
      id: Schema.string().required().description('Model id.'),
      contextWindow: Schema.natural().description(`Context window in estimated tokens; default ${DEFAULT_CONTEXT_WINDOW}.`),
      // checked when served (ctx.llm.register), which refuses a bad price in one line naming the key
      price: Schema.any().description('What the emulated tokens cost: { input, output, cacheRead, cacheWrite, source?, date? } in USD per million tokens; none: tokens only.'),
    }),
  ])).default(['scripted-echo'])
    .description('Model ids this adapter serves, as strings or { id, contextWindow }; each answers as scripted-echo unless a script is set.'),
  script: Schema.string()
    .description('Path of a JSON script ({"responses": [...]}) played one response per call; relative to the working directory.'),
  cacheFile: Schema.string()
    .description('File that keeps the emulated prompt cache between processes (one block hash a line); relative to the working directory. Omitted: each process starts with a cold cache.'),
  toolUpdate: Schema.union(['none', 'append', 'addition-only', 'in-history'] as const).default('none')
    .description('Tool-update capability this route declares to the projection.'),
})

export const name = 'dsh-llm-scripted'
export const inject = ['llm']

/** Registers the offline `scripted` adapter with `llm`; it is removed when this plugin is disposed. */
export async function apply(ctx: Context, config: Config) {
  const { models, contextWindows, prices } = checkModels(config.models)
  if (config.script !== undefined && !config.script.trim()) {
    throw new LlmScriptedError('INVALID_CONFIG', 'script must be a file path, got an empty string')
  }
  if (config.cacheFile !== undefined && !config.cacheFile.trim()) {
    throw new LlmScriptedError('INVALID_CONFIG', 'cacheFile must be a file path, got an empty string')
  }
  const script = config.script === undefined ? undefined : await loadScript(config.script)
  const { cacheFile, toolUpdate } = config
  ctx.llm.register(createScriptedAdapter({ models, contextWindows, prices, toolUpdate, ...script && { script }, ...cacheFile && { cacheFile } }))
}

function checkModels(entries: ScriptedModelEntry[]): { models: string[]; contextWindows: Record<string, number>; prices: Record<string, unknown> } {
  if (!entries.length) throw new LlmScriptedError('INVALID_CONFIG', 'models must list at least one model id, e.g. ["scripted-echo"]')
  const models: string[] = []
  const contextWindows: Record<string, number> = {}
  const prices: Record<string, unknown> = {}
  for (const entry of entries) {
    const { id, contextWindow = DEFAULT_CONTEXT_WINDOW, price } = typeof entry === 'string' ? { id: entry } : entry
    if (typeof id !== 'string' || !id.trim()) throw new LlmScriptedError('INVALID_CONFIG', `models contains an empty model id: ${JSON.stringify(entries)}`)
    if (models.includes(id)) throw new LlmScriptedError('INVALID_CONFIG', `models lists "${id}" twice: ${JSON.stringify(entries)}`)
    if (!Number.isSafeInteger(contextWindow) || contextWindow < 1) {
      throw new LlmScriptedError('INVALID_CONFIG', `model "${id}" has contextWindow ${JSON.stringify(contextWindow)}; it must be a whole number of tokens >= 1`)
    }
    models.push(id)
    contextWindows[id] = contextWindow
    if (price !== undefined) prices[id] = price
  }
  return { models, contextWindows, prices }
}

/** The scripted model plugin (`ctx.plugin(ScriptedLlm, config)`). */
const ScriptedLlm = { name, inject, Config, apply }
export default ScriptedLlm
