import { TopLevelFields } from 'dsh-core'

/**
 * The longest ACP message this agent reads, in bytes of one line (a `session/prompt` with its text): the
 * SDK's own default line limit, which, when hit inside the SDK, ends the whole connection.
 */
export const MAX_MESSAGE_BYTES = 32 * 1024 * 1024

const NEWLINE = 0x0a

/** What is done with a line over the limit: answered (when its id could be read) and logged, then dropped. */
export interface OversizedLine {
  bytes: number
  /** The request's id, when the line starts like a JSON object with a top-level string or number `id`. */
  id: string | number | undefined
  method: string | undefined
}

/**
 * Sits between stdin and the SDK's line reader: lines up to `limit` bytes pass unchanged; a longer line is
 * never handed on (nor held whole): it is scanned as it streams for its top-level `id` and `method`, then
 * reported to `onOversized`, and the connection goes on with the next line.
 */
export function limitLines(limit: number, onOversized: (line: OversizedLine) => void): TransformStream<Uint8Array, Uint8Array> {
  let held: Uint8Array[] = []
  let heldBytes = 0
  let scanner: TopLevelFields | undefined
  const take = (part: Uint8Array) => {
    if (scanner) {
      scanner.feed(part)
    } else if (heldBytes + part.byteLength > limit) {
      scanner = new TopLevelFields(['id', 'method'])
      for (const piece of held) scanner.feed(piece)
      scanner.feed(part)
      held = []
    } else {
      held.push(part)
    }
    heldBytes += part.byteLength
  }
  const endLine = (controller: TransformStreamDefaultController<Uint8Array>, newline: boolean) => {
    if (scanner) {
      onOversized({ bytes: heldBytes, id: scanner.id(), method: scanner.string('method') })
    } else {
      for (const piece of held) controller.enqueue(piece)
      if (newline) controller.enqueue(Uint8Array.of(NEWLINE))
    }
    held = []
    heldBytes = 0
    scanner = undefined
  }
  return new TransformStream({
    transform(chunk, controller) {
      let start = 0
      for (let newline = chunk.indexOf(NEWLINE); newline >= 0; newline = chunk.indexOf(NEWLINE, start)) {
        take(chunk.subarray(start, newline))
        endLine(controller, true)
        start = newline + 1
      }
      if (start < chunk.byteLength) take(chunk.subarray(start))
    },
    flush(controller) {
      if (heldBytes > 0 || scanner) endLine(controller, false)
    },
  })
}

/**
 * The warning to log for an oversized line, and the JSON-RPC error line answering it: `-32600` with the
 * request's id when it has a readable one; none for a notification (a `method` without an id: JSON-RPC
 * answers no notification); otherwise `-32700` with `id: null`, since the agent parsed none of it.
 */
export function refusal(line: OversizedLine, limit: number): { log: string; response: string | undefined } {
  const what = `a message of ${line.bytes} bytes${line.method ? ` (${line.method})` : ''}, over the limit of ${limit} bytes per message`
  const data = { bytes: line.bytes, maxMessageBytes: limit }
  if (line.id === undefined && line.method !== undefined) {
    return { log: `refused ${what}; a notification (no readable id), so nothing was answered`, response: undefined }
  }
  if (line.id === undefined) {
    const error = { code: -32700, message: `Parse error: message too large (${line.bytes} bytes; the limit is ${limit} bytes per message), not parsed`, data }
    return {
      log: `refused ${what}; it has no readable id, so it was answered with a parse error (id null)`,
      response: `${JSON.stringify({ jsonrpc: '2.0', id: null, error })}\n`,
    }
  }
  const error = {
    code: -32600,
    message: `Invalid Request: message too large (${line.bytes} bytes; the limit is ${limit} bytes per message, a prompt included)`,
    data,
  }
  return {
    log: `refused ${what}; answered request ${JSON.stringify(line.id)} with an error`,
    response: `${JSON.stringify({ jsonrpc: '2.0', id: line.id, error })}\n`,
  }
}
