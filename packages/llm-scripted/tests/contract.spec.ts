import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Context } from 'cordis'
import LlmRuntime from 'dsh-llm'
import { adapterContract, type ContractResponse } from 'dsh-llm/testing'
import ScriptedLlm from 'dsh-llm-scripted'
import { setup, tempDir } from './setup.ts'

adapterContract('scripted-echo', async () => {
  const { ctx } = await setup()
  return { ctx, model: 'scripted-echo' }
})

adapterContract('scripted (script file)', async () => {
  const ctx = new Context()
  await ctx.plugin(LlmRuntime)
  const dir = await tempDir()
  return {
    ctx,
    model: 'contract-model',
    // a script is read when the plugin starts, so each scripting starts the adapter with a fresh file
    async script(responses: ContractResponse[]) {
      const file = join(dir, 'script.json')
      await writeFile(file, JSON.stringify({ responses }))
      await ctx.plugin(ScriptedLlm, { models: ['contract-model'], script: file })
    },
  }
})
