import { isUtf8 } from 'node:buffer'

/**
 * The byte offset of the first byte sequence in `bytes` that is not UTF-8, or `undefined` when all of it
 * is. Node's decoders would put U+FFFD there silently; callers name the offset instead.
 */
export function invalidUtf8Offset(bytes: Uint8Array): number | undefined {
  if (isUtf8(bytes)) return undefined
  // the valid prefix re-encodes to the same bytes; the first invalid sequence becomes U+FFFD and differs
  const again = Buffer.from(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'), 'utf8')
  let index = 0
  while (index < bytes.length && bytes[index] === again[index]) index++
  return index
}

/** The 1-based line that byte `offset` of `bytes` lies on (the newlines before it, plus one). */
export function lineAt(bytes: Uint8Array, offset: number): number {
  let line = 1
  for (let index = bytes.indexOf(0x0a); index >= 0 && index < offset; index = bytes.indexOf(0x0a, index + 1)) line++
  return line
}

/** True when the only bytes of `bytes` that are not UTF-8 are the start of a character cut off at the end. */
export function isUtf8CutAtEnd(bytes: Uint8Array): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: true })
    return true
  } catch {
    return false
  }
}
