import nodeFs, { promises as fs } from 'node:fs'
import { open, type FileHandle } from 'node:fs/promises'
import { dirname } from 'node:path'
import type { Durability } from './durability.ts'
import { type LogLine, type ReadLinesOptions, readLineBatches } from './line-reader.ts'
import { SessionError } from './errors.ts'
import { Session, restoreEvent } from './session.ts'
import { WriteQueue } from './write-queue.ts'

/**
 * Appends lines to one JSONL file through the ordered write queue and one open file: one write per batch
 * (the lines appended in one tick, or while an fsync was in flight). `durability` decides when the lines
 * are also fsynced (see `Durability`). A writer for a new session (`fresh`) creates its folder and file
 * at the first write, and only if no file is there yet.
 */
export class JsonlWriter extends WriteQueue {
  private synced = 0
  private syncing: Promise<void> | undefined
  private file: Promise<FileHandle> | undefined

  constructor(
    readonly path: string,
    private readonly onFailure: (error: SessionError) => void = () => {},
    readonly durability: Durability = 'turn',
    private fresh = false,
  ) {
    super()
  }

  /** Resolves once every line written so far is written, and fsynced unless durability is `none`. */
  async flushed(): Promise<void> {
    const target = await this.allWritten()
    while (this.durability !== 'none' && this.synced < target && !this.failure) {
      await (this.syncing ??= this.sync())
    }
    if (this.failure) throw this.failure
  }

  /** Flushes and closes the file; a later write opens it again. */
  async close(): Promise<void> {
    await this.flushed().catch(() => {})
    const file = this.file
    this.file = undefined
    if (file) await (await file).close().catch(() => {})
  }

  protected async writeBatch(batch: string[]): Promise<void> {
    const file = await (this.file ??= this.openFile())
    // A plain write reaches the page cache in microseconds and never waits for the disk, so it is made in
    // place, not through the thread pool; the fsync (the slow part) stays asynchronous.
    writeFully(file.fd, batch.join(''))
    // An open file outlives its name: writes to a deleted log would succeed and reach nothing anyone reads.
    // (With `turn`, the check runs once per turn, at the fsync.)
    if (this.durability !== 'turn') checkLinked(file)
    if (this.durability === 'event') {
      await file.datasync()
      this.synced = this.writtenLines + batch.length
    }
  }

  private async openFile(): Promise<FileHandle> {
    if (!this.fresh) return open(this.path, 'a')
    await fs.mkdir(dirname(this.path), { recursive: true })
    try {
      const file = await open(this.path, 'wx')
      this.fresh = false
      return file
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      throw new Error('another store created this session\'s log after this one created the session')
    }
  }

  private async sync(): Promise<void> {
    try {
      const target = this.writtenLines
      if (this.file) {
        const file = await this.file
        checkLinked(file)
        await file.datasync()
      }
      this.synced = Math.max(this.synced, target)
    } catch (error) {
      this.fail(error)
    } finally {
      this.syncing = undefined
    }
  }

  protected fail(error: unknown) {
    if (this.failure) return
    const failure = new SessionError('WRITE_FAILED', `cannot append to ${this.path}: ${(error as Error).message}; `
      + 'the session refuses further appends', { cause: error })
    this.failure = failure
    this.onFailure(failure)
  }
}

/** Writes all of `text` (a write may take only part of it). */
function writeFully(fd: number, text: string): void {
  const bytes = Buffer.from(text)
  let written = 0
  while (written < bytes.length) written += nodeFs.writeSync(fd, bytes, written, bytes.length - written)
}

/** Throws when the log was deleted: an open file outlives its name. A stat of an open file never waits for the disk. */
function checkLinked(file: FileHandle): void {
  if (nodeFs.fstatSync(file.fd).nlink === 0) throw new Error('the file was deleted while the session was open')
}

/**
 * Checks that a new session may take `path`: fails with EXISTS when a log is there, and with the file
 * system's error when the path cannot be a file in a folder (a part of it is a file, say). Writes nothing.
 */
export async function checkLogFree(path: string): Promise<void> {
  try {
    await fs.stat(path)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return
    throw error
  }
  throw new SessionError('EXISTS', `session log ${path} already exists; use open() or openOrCreate()`)
}

export interface LoadHooks {
  warn(message: string): void
  /** The writer that appends to this log once loaded. */
  writer: JsonlWriter
  /** Passed to the line reader (tests use small chunks). */
  read?: ReadLinesOptions
}

/**
 * Loads a session from its JSONL log, read as a stream of lines, so a log of any size opens. A torn last
 * line (invalid JSON, as after a crash mid-write) is reported through `warn` and truncated off the file;
 * any other bad line fails naming file and line, and a line over the length limit fails naming the limit.
 */
export async function loadSession(id: string, path: string, hooks: LoadHooks): Promise<Session> {
  let tornReason = ''
  let size: number
  try {
    size = (await fs.stat(path)).size
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new SessionError('NOT_FOUND', `session "${id}" has no log at ${path}`)
    }
    throw error
  }
  const session = new Session(id, { resumed: true, sink: hooks.writer })
  let torn: LogLine | undefined
  let last: LogLine | undefined
  for await (const batch of readLineBatches(path, hooks.read)) {
    for (const line of batch) {
      if (torn) {
        throw new SessionError('CORRUPT_LINE', `${path}, line ${torn.number}: not valid JSON (${tornReason})`)
      }
      last = line
      let record: unknown
      try {
        record = JSON.parse(line.text)
      } catch (error) {
        torn = line
        tornReason = (error as Error).message
        continue
      }
      try {
        session[restoreEvent](record)
      } catch (error) {
        if (!(error instanceof SessionError)) throw error
        throw new SessionError(error.code, `${path}, line ${line.number}: ${error.message}`, { cause: error })
      }
    }
  }

  if (torn) {
    await fs.truncate(path, torn.offset)
    hooks.warn(`${path}, line ${torn.number}: skipped a torn last line (${size - torn.offset} bytes of invalid JSON, `
      + 'likely an interrupted write) and truncated it off the file')
  } else if (last && !last.terminated) {
    // A complete last record without its newline: finish the line so the next append starts clean.
    await fs.appendFile(path, '\n')
  }
  return session
}
