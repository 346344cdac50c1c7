import { Context } from 'cordis'
import LlmRuntime from 'dsh-llm'
import { adapterContract, type ContractResponse } from 'dsh-llm/testing'
import OpenAIProvider, { type OpenAIConfig } from '../src/index.ts'
import { sendError, sendStream, textReply, toolCallReply, wireUsage } from './emulator.ts'
import { startLoopback } from './loopback.ts'
import { fakeKey } from './setup.ts'

adapterContract('dsh-llm-openai', async () => {
  const queue: ContractResponse[] = []
  let calls = 0
  const server = await startLoopback((_, res) => {
    const next = queue.shift() ?? { text: 'unscripted' }
    const usage = next.usage ? wireUsage(next.usage) : undefined
    const answer = () => {
      if (next.error) return sendError(res, 500, next.error)
      if (next.toolCalls) {
        return sendStream(res, toolCallReply(next.toolCalls.map((call) => ({
          id: `call_${++calls}`, name: call.name, arguments: JSON.stringify(call.arguments),
        })), usage))
      }
      sendStream(res, textReply(next.text ?? '', usage))
    }
    if (!next.delayMs) return answer()
    const timer = setTimeout(answer, next.delayMs)
    res.on('close', () => clearTimeout(timer))
  })
  const key = fakeKey()
  const ctx = new Context()
  await ctx.plugin(LlmRuntime)
  const fiber = await ctx.plugin(OpenAIProvider, { baseURL: `${server.origin}/v1`, apiKeyEnv: key.name, models: ['contract-model'] } as OpenAIConfig)
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
