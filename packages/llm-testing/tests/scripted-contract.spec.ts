import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import LlmRuntime from 'dsh-llm'
import ScriptedLlm from 'dsh-llm-scripted'
import { adapterContract } from '../src/index.ts'
import { type ContractResponse } from '../src/contract.ts'

// The offline scripted model runs the adapter contract here rather than in its own package: this package's
// cache emulator answers through that model's `echoReply`, so the model's package cannot also depend on this one.

async function withLlm() {
  const ctx = new Context()
  await ctx.plugin(LlmRuntime)
  return ctx
}

adapterContract('scripted-echo', async () => {
  const ctx = await withLlm()
  await ctx.plugin(ScriptedLlm, {})
  return { ctx, model: 'scripted-echo' }
})

adapterContract('scripted (script file)', async () => {
  const ctx = await withLlm()
  const dir = await mkdtemp(join(tmpdir(), 'dsh-llm-testing-'))
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
