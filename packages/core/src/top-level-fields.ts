// a value longer than this is not worth reading back
const MAX_ID_BYTES = 256
const QUOTE = 0x22
const BACKSLASH = 0x5c
const COLON = 0x3a
const COMMA = 0x2c
const OPEN = new Set([0x7b, 0x5b])
const CLOSE = new Set([0x7d, 0x5d])

/**
 * Reads the values of a few top-level keys (`id`, `method`) of a JSON object streamed as bytes, keeping
 * only those few bytes: a 50 MB message costs one pass and no copy. For answering a message too large to
 * parse: a value longer than 256 bytes, or nested, is not read.
 */
export class TopLevelFields {
  private depth = 0
  private inString = false
  private escaped = false
  private state: 'key' | 'colon' | 'value' = 'key'
  private key: number[] | undefined
  private value: number[] | undefined
  private valueKey = ''
  private readonly found = new Map<string, unknown>()
  private done = false

  constructor(private readonly keys: readonly string[]) {}

  feed(bytes: Uint8Array): void {
    for (let i = 0; i < bytes.length && !this.done; i++) this.step(bytes[i]!)
  }

  /** The top-level `id` when it is a string or a finite number (a JSON-RPC id that can be answered). */
  id(): string | number | undefined {
    const id = this.found.get('id')
    return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : undefined
  }

  /** The value of `key` when it is a string. */
  string(key: string): string | undefined {
    const value = this.found.get(key)
    return typeof value === 'string' ? value : undefined
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
      this.value = this.keys.includes(this.valueKey) ? [] : undefined
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
    if (this.keys.every((key) => this.found.has(key))) this.done = true
  }
}
