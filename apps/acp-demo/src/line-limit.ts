/**
 * The longest ACP message this agent reads, in bytes of one line (a `session/prompt` with its text): the
 * SDK's own default line limit, which, when hit inside the SDK, ends the whole connection.
 */
export const MAX_MESSAGE_BYTES = 32 * 1024 * 1024

const NEWLINE = 0x0a
// a top-level id longer than this is not worth echoing back
const MAX_ID_BYTES = 256

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
  let scanner: FieldScanner | undefined
  const take = (part: Uint8Array) => {
    if (scanner) {
      scanner.feed(part)
    } else if (heldBytes + part.byteLength > limit) {
      scanner = new FieldScanner()
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
      onOversized({ bytes: heldBytes, id: scanner.id(), method: scanner.method() })
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

/** The warning to log for an oversized line, and the JSON-RPC error line answering it when it has an id. */
export function refusal(line: OversizedLine, limit: number): { log: string; response: string | undefined } {
  const what = `a message of ${line.bytes} bytes${line.method ? ` (${line.method})` : ''}, over the limit of ${limit} bytes per message`
  if (line.id === undefined) return { log: `refused ${what}; it has no readable id, so nothing was answered`, response: undefined }
  const error = {
    code: -32600,
    message: `Invalid Request: message too large (${line.bytes} bytes; the limit is ${limit} bytes per message, a prompt included)`,
    data: { bytes: line.bytes, maxMessageBytes: limit },
  }
  return {
    log: `refused ${what}; answered request ${JSON.stringify(line.id)} with an error`,
    response: `${JSON.stringify({ jsonrpc: '2.0', id: line.id, error })}\n`,
  }
}

const QUOTE = 0x22
const BACKSLASH = 0x5c
const COLON = 0x3a
const COMMA = 0x2c
const OPEN = new Set([0x7b, 0x5b])
const CLOSE = new Set([0x7d, 0x5d])

/**
 * Reads the raw JSON of the top-level `id` and `method` of an object streamed as bytes, keeping only those
 * few bytes: a 50 MB prompt costs one pass and no copy.
 */
class FieldScanner {
  private depth = 0
  private inString = false
  private escaped = false
  private state: 'key' | 'colon' | 'value' = 'key'
  private key: number[] | undefined
  private value: number[] | undefined
  private valueKey = ''
  private readonly found = new Map<string, unknown>()
  private done = false

  feed(bytes: Uint8Array): void {
    for (let i = 0; i < bytes.length && !this.done; i++) this.step(bytes[i]!)
  }

  id(): string | number | undefined {
    const id = this.found.get('id')
    return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : undefined
  }

  method(): string | undefined {
    const method = this.found.get('method')
    return typeof method === 'string' ? method : undefined
  }

  private step(byte: number): void {
    const top = this.depth === 1
    if (top && this.state === 'value' && this.value && this.value.length <= MAX_ID_BYTES) this.value.push(byte)
    if (this.inString) {
      if (this.escaped) this.escaped = false
      else if (byte === BACKSLASH) this.escaped = true
      else if (byte === QUOTE) this.inString = false
      if (top && this.key) {
        if (this.inString) this.key.push(byte)
        else this.endKey()
      }
      return
    }
    if (byte === QUOTE) {
      this.inString = true
      if (top && this.state === 'key') this.key = []
    } else if (OPEN.has(byte)) {
      this.depth++
    } else if (CLOSE.has(byte)) {
      if (top) this.endValue()
      this.depth--
      if (this.depth <= 0) this.done = true
    } else if (top && byte === COLON && this.state === 'colon') {
      this.state = 'value'
      this.value = this.valueKey === 'id' || this.valueKey === 'method' ? [] : undefined
    } else if (top && byte === COMMA && this.state === 'value') {
      this.endValue()
      this.state = 'key'
    }
  }

  private endKey(): void {
    this.valueKey = Buffer.from(this.key!).toString('utf8')
    this.key = undefined
    this.state = 'colon'
  }

  private endValue(): void {
    const value = this.value
    this.value = undefined
    if (!value || value.length > MAX_ID_BYTES) return
    // the byte that ended the value (`,` or `}`) was recorded with it
    try {
      this.found.set(this.valueKey, JSON.parse(Buffer.from(value.slice(0, -1)).toString('utf8')))
    } catch {
      // not a readable value
    }
    if (this.found.has('id') && this.found.has('method')) this.done = true
  }
}
