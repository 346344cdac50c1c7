import type { AnyMessage, Stream } from '@agentclientprotocol/sdk'

type Id = string | number

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)
const readableId = (value: unknown): value is Id => typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value))

/**
 * Why `message` is not a request although it carries a readable id and a `method` key, or undefined.
 * The SDK answers such a message with `id: null`, which leaves the client's request pending forever.
 */
export function malformedRequest(message: unknown): { id: Id; reason: string } | undefined {
  if (!isRecord(message) || !readableId(message.id) || !('method' in message)) return undefined
  if (message.jsonrpc !== '2.0') return { id: message.id, reason: `"jsonrpc" must be "2.0", got ${JSON.stringify(message.jsonrpc) ?? 'nothing'}` }
  if (typeof message.method !== 'string') return { id: message.id, reason: `"method" must be a string, got ${JSON.stringify(message.method)}` }
  return undefined
}

/**
 * Wraps an ACP message stream for the agent side, fixing two things the SDK does not:
 * - a client may pipeline `initialize` and the requests after it; the SDK refuses anything that arrives
 *   before its `initialize` answer is out, so messages after an `initialize` request are held back until
 *   the response to it has been written;
 * - a malformed request with a readable id is answered with that id (`-32600`), not with `id: null`.
 * `onInitialize` sees each `initialize` request's params as sent, before the SDK parses (and trims) them.
 */
export function gateMessages(stream: Stream, hooks: { onInitialize?: (params: Record<string, unknown> | undefined) => void } = {}): Stream {
  const writer = stream.writable.getWriter()
  const reader = stream.readable.getReader()
  let pendingInitialize: { id: Id; answered: Promise<void>; release: () => void } | undefined

  const writable = new WritableStream<AnyMessage>({
    async write(message) {
      await writer.write(message)
      const pending = pendingInitialize
      const raw: unknown = message
      if (pending && isRecord(raw) && !('method' in raw) && raw.id === pending.id) {
        pendingInitialize = undefined
        pending.release()
      }
    },
    close: () => writer.close(),
    abort: (reason) => writer.abort(reason),
  })

  const readable = new ReadableStream<AnyMessage>({
    async pull(controller) {
      for (;;) {
        if (pendingInitialize) await pendingInitialize.answered
        const { done, value } = await reader.read()
        if (done) return controller.close()
        const malformed = malformedRequest(value)
        if (malformed) {
          await writer.write({
            jsonrpc: '2.0',
            id: malformed.id,
            error: { code: -32600, message: 'Invalid request', data: { reason: malformed.reason } },
          } as AnyMessage)
          continue
        }
        const raw: unknown = value
        if (isRecord(raw) && raw.method === 'initialize' && readableId(raw.id)) {
          let release!: () => void
          const answered = new Promise<void>((resolve) => (release = resolve))
          pendingInitialize = { id: raw.id, answered, release }
          hooks.onInitialize?.(isRecord(raw.params) ? raw.params : undefined)
        }
        return controller.enqueue(value)
      }
    },
    cancel: (reason) => reader.cancel(reason),
  })
  return { readable, writable }
}
