import type Anthropic from '@anthropic-ai/sdk'
import { oneLine } from 'dsh-core'

/** Where each client's SDK warnings go, and which it already said. */
const sinks = new WeakMap<Anthropic, { warn: (message: string) => void; said: Set<string> }>()

/** Sends `client`'s SDK warnings to `warn`, each distinct one once (per model: the text names the model). */
export function routeSdkWarnings(client: Anthropic, warn: (message: string) => void): Anthropic {
  sinks.set(client, { warn, said: new Set() })
  return client
}

/**
 * Runs `send` (an SDK `create` call) with the SDK's `console.warn` notices (a deprecated model, a deprecated
 * thinking setting) taken to the client's sink instead of stderr. The SDK prints them synchronously inside
 * `create`, before its first await, and ignores its own `logger` option for them; so `console.warn` is swapped
 * for that synchronous stretch only, during which no other code runs.
 */
export function withSdkWarnings<T>(client: Anthropic, send: () => T): T {
  const sink = sinks.get(client)
  if (!sink) return send()
  const original = console.warn
  console.warn = (...args: unknown[]) => {
    const text = oneLine(args.map(String).join(' '))
    if (sink.said.has(text)) return
    sink.said.add(text)
    sink.warn(`@anthropic-ai/sdk: ${text}`)
  }
  try {
    return send()
  } finally {
    console.warn = original
  }
}
