import { open, type FileHandle } from 'node:fs/promises'
import { invalidUtf8Offset, isUtf8CutAtEnd } from 'dsh-core'
import { SessionError } from './errors.ts'

/** One line of a log, without its newline. */
export interface LogLine {
  text: string
  /** 1-based line number. */
  number: number
  /** Byte offset of the line's first byte in the file. */
  offset: number
  /** False for a last line that has no newline. */
  terminated: boolean
}

export interface ReadLinesOptions {
  /** Bytes read from the file at a time. */
  chunkBytes?: number
  /** The longest line accepted, in bytes; a longer one fails the read naming the file and the limit. */
  maxLineBytes?: number
}

/** 256 MiB: well under the longest string V8 can build (about 512 MiB of one-byte text). */
export const MAX_LINE_BYTES = 256 * 1024 * 1024
const CHUNK_BYTES = 1024 * 1024

/**
 * A line's bytes as text. Bytes that are not UTF-8 make it a broken line (`CORRUPT_LINE`, naming the byte
 * offset), never a silent U+FFFD in an event; only a character cut off at the end of an unterminated last
 * line passes, so that an interrupted write stays a torn tail.
 */
function decodeLine(bytes: Buffer, terminated: boolean, path: string, number: number, offset: number): string {
  const bad = invalidUtf8Offset(bytes)
  if (bad !== undefined && (terminated || !isUtf8CutAtEnd(bytes))) {
    throw new SessionError('CORRUPT_LINE', `${path}, line ${number}: not valid UTF-8 at byte offset ${offset + bad}; the log cannot be opened`)
  }
  return bytes.toString('utf8')
}

/**
 * Reads a file as a stream of UTF-8 lines, a chunk at a time, so a log of any size can be read: each line
 * is decoded into a string of its own, never the whole file (nor a whole chunk).
 */
export async function* readLines(path: string, options: ReadLinesOptions = {}): AsyncGenerator<LogLine> {
  for await (const batch of readLineBatches(path, options)) yield* batch
}

/**
 * The lines of a file as `readLines` reads them, handed over one chunk's worth at a time: a loader of a
 * large log then pays one await per chunk (1 MiB) instead of one per line. Reads `path`, or the file
 * already open as `handle` (which it closes at the end).
 */
export async function* readLineBatches(path: string, options: ReadLinesOptions = {}, handle?: FileHandle): AsyncGenerator<LogLine[]> {
  const chunkBytes = options.chunkBytes ?? CHUNK_BYTES
  const maxLineBytes = options.maxLineBytes ?? MAX_LINE_BYTES
  const file = handle ?? await open(path, 'r')
  try {
    // The start of a line that runs past the end of the chunks read so far.
    let pending: Buffer[] = []
    let pendingBytes = 0
    let number = 0
    let offset = 0
    const tooLong = () => new SessionError('LINE_TOO_LONG',
      `${path}, line ${number + 1}: longer than the limit of ${maxLineBytes} bytes per line; the log cannot be opened`)
    for (;;) {
      const chunk = Buffer.allocUnsafe(chunkBytes)
      const { bytesRead } = await file.read(chunk, 0, chunkBytes, null)
      if (bytesRead === 0) break
      const batch: LogLine[] = []
      let start = 0
      for (;;) {
        const newline = chunk.indexOf(10, start)
        if (newline < 0 || newline >= bytesRead) break
        const bytes = pendingBytes + newline - start
        if (bytes > maxLineBytes) throw tooLong()
        const text = decodeLine(pending.length ? Buffer.concat([...pending, chunk.subarray(start, newline)]) : chunk.subarray(start, newline),
          true, path, ++number, offset)
        batch.push({ text, number, offset, terminated: true })
        offset += bytes + 1
        if (pending.length) pending = []
        pendingBytes = 0
        start = newline + 1
      }
      if (start < bytesRead) {
        pending.push(chunk.subarray(start, bytesRead))
        pendingBytes += bytesRead - start
        if (pendingBytes > maxLineBytes) throw tooLong()
      }
      if (batch.length) yield batch
    }
    if (pendingBytes > 0) yield [{ text: decodeLine(Buffer.concat(pending), false, path, ++number, offset), number, offset, terminated: false }]
  } finally {
    await file.close()
  }
}
