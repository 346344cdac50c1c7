import { sha256 } from 'dsh-system-prompt/bytes'

/** Hex digits kept of each sha256: 64 bits tell the requests of one conversation apart with room to spare. */
export const HASH_LENGTH = 16

/** A short sha256 (hex) of `text`'s UTF-8 bytes. */
export function shortHash(text: string): string {
  return sha256(text).slice(0, HASH_LENGTH)
}
