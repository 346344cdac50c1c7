import { adapterContract, loopbackHarness } from 'dsh-llm-testing'
import OpenAIProvider from '../src/index.ts'
import { sendError, sendStream, textReply, toolCallReply, wireUsage } from './wire-frames.ts'
import { fakeKey } from './setup.ts'

adapterContract('dsh-llm-openai', loopbackHarness({
  plugin: OpenAIProvider,
  key: fakeKey,
  config: (server, apiKeyEnv, model) => ({ baseURL: `${server.origin}/v1`, apiKeyEnv, models: [model] }),
  respond(res, next, callId) {
    const usage = next.usage ? wireUsage(next.usage) : undefined
    if (next.error) return sendError(res, 500, next.error)
    if (next.toolCalls) {
      return sendStream(res, toolCallReply(next.toolCalls.map((call) => ({
        id: `call_${callId()}`, name: call.name, arguments: JSON.stringify(call.arguments),
      })), usage))
    }
    sendStream(res, textReply(next.text ?? '', usage))
  },
}))
