import { fakeApiKey, startLoopback, startLoopbackAdapter } from 'dsh-llm-testing'
import AnthropicProvider, { type AnthropicConfig } from '../src/index.ts'

/** How the loopback server answers a request (`startLoopback`'s handler). */
type LoopbackHandler = Parameters<typeof startLoopback>[0]

/** A fresh env var name per test, holding a fresh fake key; removed by `cleanup()`. */
export const fakeKey = () => fakeApiKey('DSH_TEST_ANTHROPIC_KEY', 'sk-ant-test-')

/** A context with `llm` and the Anthropic plugin pointed at a loopback server answering with `handler`. */
export function setup(handler: LoopbackHandler, config: Partial<AnthropicConfig> = {}) {
  return startLoopbackAdapter(AnthropicProvider, handler, fakeKey(), (server, apiKeyEnv) => ({
    baseURL: server.origin,
    apiKeyEnv,
    models: ['test-model'],
    ...config,
  }))
}
