import { Context } from 'cordis'
import LlmRuntime from 'dsh-llm'
import { adapterContract, type ContractResponse } from 'dsh-llm/testing'
import AnthropicProvider, { type AnthropicConfig } from '../src/index.ts'
import { reply, sendError, sendEvents, wireUsage } from './emulator.ts'
import { startLoopback } from './loopback.ts'
import { fakeKey } from './setup.ts'

adapterContract('dsh-llm-anthropic', async () => {
  const queue: ContractResponse[] = []
  let calls = 0
  const server = await startLoopback((_, res) => {
    const next = queue.shift() ?? { text: 'unscripted' }
    const answer = () => {
      if (next.error) return sendError(res, 500, 'api_error', next.error)
      const usage = next.usage ? wireUsage(next.usage) : undefined
      sendEvents(res, reply({
        text: next.text ?? '',
        calls: (next.toolCalls ?? []).map((call) => ({ id: `toolu_${++calls}`, name: call.name, input: JSON.stringify(call.arguments) })),
        ...usage && { start: { ...usage, output_tokens: 1 }, end: { output_tokens: usage.output_tokens } },
      }))
    }
    if (!next.delayMs) return answer()
    const timer = setTimeout(answer, next.delayMs)
    res.on('close', () => clearTimeout(timer))
  })
  const key = fakeKey()
  const ctx = new Context()
  await ctx.plugin(LlmRuntime)
  const fiber = await ctx.plugin(AnthropicProvider, { baseURL: server.origin, apiKeyEnv: key.name, models: ['contract-model'] } as AnthropicConfig)
  return {
    ctx,
    model: 'contract-model',
    script: (responses) => { queue.push(...responses) },
    async teardown() {
      await fiber.dispose()
      await server.close()
      key.cleanup()
    },
  }
})

