import type { Plugin } from 'cordis'
import type { ServerResponse } from 'node:http'
import type { ContractHarness, ContractResponse } from './contract.ts'
import type { FakeApiKey } from './fake-key.ts'
import { startLoopback, type Loopback, type LoopbackHandler } from './loopback.ts'
import { loadWithLlm } from './plugin.ts'

/**
 * Starts a loopback server answering with `handler`, sets the fake `key`, and loads `plugin` (after
 * `LlmRuntime`) with the config `config` builds from the server and the key variable's name.
 */
export async function startLoopbackAdapter(
  plugin: Plugin,
  handler: LoopbackHandler,
  key: FakeApiKey,
  config: (server: Loopback, apiKeyEnv: string) => object,
) {
  const server = await startLoopback(handler)
  const { ctx, fiber } = await loadWithLlm(plugin, config(server, key.name))
  return {
    ctx,
    fiber,
    server,
    key,
    /** Disposes the plugin, closes the server and removes the key variable. */
    async teardown() {
      await fiber.dispose()
      await server.close()
      key.cleanup()
    },
  }
}

/** An HTTP adapter plugin loaded in a fresh context (`ctx` has `llm`) and pointed at a loopback server. */
export type LoopbackAdapter = Awaited<ReturnType<typeof startLoopbackAdapter>>

/** How an HTTP adapter's wire format answers one scripted contract response. */
export interface LoopbackHarnessOptions {
  plugin: Plugin
  /** A fresh fake key per check. */
  key(): FakeApiKey
  /** The plugin's config serving `model` from the server, with the key in the variable `apiKeyEnv`. */
  config(server: Loopback, apiKeyEnv: string, model: string): object
  /**
   * Writes `response` (text, tool calls, usage or an error) in the wire format. `callId()` numbers the
   * tool calls of the whole check, so ids never repeat.
   */
  respond(res: ServerResponse, response: ContractResponse, callId: () => number): void
}

const CONTRACT_MODEL = 'contract-model'

/**
 * The `adapterContract` setup for an HTTP adapter: each check gets a loopback server that plays the
 * scripted responses in order (`{ text: 'unscripted' }` once they run out), honouring `delayMs`.
 */
export function loopbackHarness(options: LoopbackHarnessOptions): () => Promise<ContractHarness> {
  return async () => {
    const queue: ContractResponse[] = []
    let calls = 0
    const callId = () => ++calls
    const h = await startLoopbackAdapter(options.plugin, (_, res) => {
      const next = queue.shift() ?? { text: 'unscripted' }
      if (!next.delayMs) return options.respond(res, next, callId)
      const timer = setTimeout(() => options.respond(res, next, callId), next.delayMs)
      res.on('close', () => clearTimeout(timer))
    }, options.key(), (server, apiKeyEnv) => options.config(server, apiKeyEnv, CONTRACT_MODEL))
    return {
      ctx: h.ctx,
      model: CONTRACT_MODEL,
      script: (responses) => { queue.push(...responses) },
      teardown: h.teardown,
    }
  }
}
