import { createHash } from 'node:crypto'

/** Hex sha256 of a text's UTF-8 bytes: the one hash prompt fingerprints are made of. */
export function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex')
}
