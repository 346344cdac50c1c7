import type { Context } from 'cordis'
import type { ToolUpdateMode } from 'dsh-llm'
import Schema from 'schemastery'
import { createScriptedAdapter } from './adapter.ts'
import { ScriptedError } from './error.ts'
import { loadScript } from './script.ts'

/** Configuration of the scripted model plugin. */
export interface Config {
  models: string[]
  script?: string
  toolUpdate: ToolUpdateMode
}

export const Config: Schema<Partial<Config>, Config> = Schema.object({
  models: Schema.array(Schema.string()).default(['scripted-echo'])
    .description('Model ids this adapter serves; each answers as scripted-echo unless a script is set.'),
  script: Schema.string()
    .description('Path of a JSON script ({"responses": [...]}) played one response per call; relative to the working directory.'),
  toolUpdate: Schema.union(['none', 'addition-only', 'in-history'] as const).default('none')
    .description('Tool-update capability this route declares to the projection.'),
})

export const name = 'dsh-llm-scripted'
export const inject = ['llm']

/** Registers the offline `scripted` adapter with `llm`; it is removed when this plugin is disposed. */
export async function apply(ctx: Context, config: Config) {
  const models = checkModels(config.models)
  if (config.script !== undefined && !config.script.trim()) {
    throw new ScriptedError('INVALID_CONFIG', 'script must be a file path, got an empty string')
  }
  const script = config.script === undefined ? undefined : await loadScript(config.script)
  ctx.llm.register(createScriptedAdapter({ models, toolUpdate: config.toolUpdate, ...script && { script } }))
}

function checkModels(models: string[]): string[] {
  if (!models.length) throw new ScriptedError('INVALID_CONFIG', 'models must list at least one model id, e.g. ["scripted-echo"]')
  const seen = new Set<string>()
  for (const model of models) {
    if (!model.trim()) throw new ScriptedError('INVALID_CONFIG', `models contains an empty model id: ${JSON.stringify(models)}`)
    if (seen.has(model)) throw new ScriptedError('INVALID_CONFIG', `models lists "${model}" twice: ${JSON.stringify(models)}`)
    seen.add(model)
  }
  return models
}

/** The scripted model plugin (`ctx.plugin(ScriptedLlm, config)`). */
const ScriptedLlm = { name, inject, Config, apply }
export default ScriptedLlm
