import { httpTimeoutContract } from 'dsh-llm/testing'
import OpenAIProvider from '../src/index.ts'
import { chunk } from './emulator.ts'
import { fakeKey } from './setup.ts'

const write = (res: import('node:http').ServerResponse, data: unknown) => res.write(`data: ${JSON.stringify(data)}\n\n`)

httpTimeoutContract('dsh-llm-openai', {
  plugin: OpenAIProvider,
  key: fakeKey,
  config: (server, apiKeyEnv, model) => ({ baseURL: `${server.origin}/v1`, apiKeyEnv, models: [model] }),
  open(res) {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
    write(res, chunk({ role: 'assistant', content: '' }))
  },
  text: (res, text) => write(res, chunk({ content: text })),
  close(res) {
    write(res, chunk({}, 'stop'))
    res.end('data: [DONE]\n\n')
  },
})
