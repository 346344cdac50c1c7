import { fakeApiKey, startLoopback, startLoopbackAdapter } from 'dsh-llm-testing'
import OpenAIProvider, { type OpenAIConfig } from '../src/index.ts'

/** How the loopback server answers a request (`startLoopback`'s handler). */
type LoopbackHandler = Parameters<typeof startLoopback>[0]

/** A fresh env var name per test, holding a fresh fake key; removed by `cleanup()`. */
export const fakeKey = () => fakeApiKey('DSH_TEST_OPENAI_KEY', 'sk-test-')

/** A context with `llm` and the OpenAI plugin pointed at a loopback server answering with `handler`. */
export function setup(handler: LoopbackHandler, config: Partial<OpenAIConfig> = {}) {
  return startLoopbackAdapter(OpenAIProvider, handler, fakeKey(), (server, apiKeyEnv) => ({
    baseURL: `${server.origin}/v1`,
    apiKeyEnv,
    models: ['test-model'],
    ...config,
  }))
}
