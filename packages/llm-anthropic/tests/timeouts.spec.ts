import { httpTimeoutContract } from 'dsh-llm/testing'
import AnthropicProvider from '../src/index.ts'
import { frame, messageEnd, messageStart } from './emulator.ts'
import { fakeKey } from './setup.ts'

httpTimeoutContract('dsh-llm-anthropic', {
  plugin: AnthropicProvider,
  key: fakeKey,
  config: (server, apiKeyEnv, model) => ({ baseURL: server.origin, apiKeyEnv, models: [model] }),
  open(res) {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
    res.write(frame(messageStart()))
    res.write(frame({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }))
  },
  text: (res, text) => res.write(frame({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } })),
  close(res) {
    res.write(frame({ type: 'content_block_stop', index: 0 }))
    for (const event of messageEnd('end_turn')) res.write(frame(event))
    res.end()
  },
})
